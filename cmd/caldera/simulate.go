package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

func newSimulateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "simulate --cluster FILE",
		Short: "Run the scheduler on an embedded cluster built from manifests",
		Long: `Loads Nodes, Pods, Namespaces, PriorityClasses, PodGroups and Queues (and the
Services, ReplicationControllers, ReplicaSets and StatefulSets whose selectors
give pods default spread constraints) from a multi-document manifest file into an in-memory API server and runs the real
informers, cache, sessions, actions and binder on it. Between sessions bound
pods start running and evicted pods are gone.

With --watch, sessions run every --schedule-period until interrupted, and
changes to --scheduler-conf and the modules of --plugin-dir are reloaded
between sessions as caldera run reloads them; each session prints a line
(with --output json, one JSON object per session).`,
		Args: cobra.NoArgs,
	}
	addSimulateFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		v := settings(cmd.Flags())
		output := v.GetString("output")
		if output != "table" && output != "json" {
			return fmt.Errorf("--output: expected table or json, got %q", output)
		}
		cluster, res, err := simulation(cmd.Context(), v, sessionWriter(cmd.OutOrStdout(), output))
		if err != nil {
			return err
		}
		if v.GetBool("watch") && output == "json" {
			return nil // every session has had its line
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), res)
		}
		return writeTable(cmd.OutOrStdout(), cluster, res)
	}
	return cmd
}

// addSimulateFlags adds the flags of `caldera simulate`; `caldera plugin
// test` runs its folders through the same flags.
func addSimulateFlags(f *pflag.FlagSet) {
	f.String("cluster", "", "manifest file describing the cluster (required)")
	f.Int("cycles", 0, "sessions to run (default: until a session changes nothing, at most 100); ignored with --watch")
	f.Bool("csi-storage", false, "check CSI drivers' published storage capacity (CSIStorageCapacity) when a claim is to be provisioned, as vc-scheduler's --csi-storage does")
	f.String("output", "table", "output format: table or json")
	f.StringSlice("scheduler-name", []string{"volcano"}, "schedulerName values this scheduler is responsible for (repeatable, or comma-separated)")
	f.Duration("schedule-period", defaultSchedulePeriod, "with --watch, time between the end of one session and the start of the next")
	addPolicyFlags(f, false)
	addEventHandlerFlags(f)
}

// simulation runs the simulation the settings describe and returns the
// cluster it loaded and the result. With --watch, onSession is told of
// each session as it ends, until ctx ends or SIGTERM or SIGINT arrives.
func simulation(ctx context.Context, v *viper.Viper, onSession func(*simulator.SessionResult) error) (*simulator.Cluster, *simulator.Result, error) {
	clusterFile := v.GetString("cluster")
	if clusterFile == "" {
		return nil, nil, fmt.Errorf("--cluster is required")
	}
	if v.GetInt("cycles") < 0 {
		return nil, nil, fmt.Errorf("--cycles: expected a positive number, got %d", v.GetInt("cycles"))
	}
	watch := v.GetBool("watch")
	if watch && v.GetDuration("schedule-period") <= 0 {
		return nil, nil, fmt.Errorf("--schedule-period: expected a positive duration, got %s", v.GetDuration("schedule-period"))
	}
	if watch {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
		defer stop()
	}
	policy, closePolicy, err := newReloader(ctx, v, !watch, nil)
	if err != nil {
		return nil, nil, err
	}
	defer closePolicy()
	cluster, err := simulator.LoadCluster(clusterFile)
	if err != nil {
		return nil, nil, err
	}
	handlers, err := newEventHandlers(ctx, v, policy.CompilationCache())
	if err != nil {
		return nil, nil, err
	}
	defer handlers.close()
	opts := simulator.Options{
		Cluster:        cluster,
		Policies:       policy.Policies(),
		Actions:        actions.Registry(),
		Cycles:         v.GetInt("cycles"),
		SchedulerNames: schedulerNames(v),

		TrackStorageCapacity: v.GetBool("csi-storage"),

		EventHandlers:      handlers.registry,
		EventHandler:       handlers.name,
		EventHandlerConfig: handlers.config,
	}
	if watch {
		stopWatch := watchPolicy(ctx, policy)
		defer stopWatch() // before the policy closes
		opts.Watch, opts.Period = true, v.GetDuration("schedule-period")
		opts.OnSession = onSession
	}
	res, err := simulator.Run(ctx, opts)
	return cluster, res, err
}

// sessionWriter prints one line per session of a watch: a JSON object
// (SessionResult), or a summary.
func sessionWriter(w io.Writer, output string) func(*simulator.SessionResult) error {
	enc := json.NewEncoder(w)
	return func(s *simulator.SessionResult) error {
		if output == "json" {
			return enc.Encode(s)
		}
		names := make([]string, 0, len(s.Plugins))
		for name, digest := range s.Plugins {
			entry := name + "=" + shortDigest(digest)
			if image := s.Images[name]; image != "" {
				entry += " (" + image + ")"
			}
			names = append(names, entry)
		}
		sort.Strings(names)
		plugins := "none"
		if len(names) > 0 {
			plugins = strings.Join(names, ", ")
		}
		_, err := fmt.Fprintf(w, "session %d: %d bind(s), %d eviction(s), %d pod(s) unschedulable; Wasm plugins: %s\n",
			s.Session, len(s.Binds), len(s.Evictions), len(s.Unschedulable), plugins)
		return err
	}
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

func writeJSON(w io.Writer, res *simulator.Result) error {
	enc := json.NewEncoder(w)
	return enc.Encode(res)
}

// writeTable prints, per job, its queue, phase, pods bound and pending;
// then where each job's pods were bound, and why pending pods are pending,
// pods of one job with the same reason on one line.
func writeTable(w io.Writer, cluster *simulator.Cluster, res *simulator.Result) error {
	type jobRow struct {
		queue, phase   string
		bound, pending int
		nodes          map[string]int
		pendingPods    []string
	}
	jobs := map[string]*jobRow{}
	queueOf := map[string]string{}
	for _, pg := range cluster.PodGroups {
		key := pg.Namespace + "/" + pg.Name
		queueOf[key] = pg.Spec.Queue
	}
	for _, p := range cluster.Pods {
		key := p.Namespace + "/" + p.Name
		job := key + " (no PodGroup)"
		if g := p.Annotations["scheduling.k8s.io/group-name"]; g != "" {
			job = p.Namespace + "/" + g
		}
		row := jobs[job]
		if row == nil {
			row = &jobRow{queue: queueOf[job], phase: "-", nodes: map[string]int{}}
			if row.queue == "" {
				row.queue = "default"
			}
			if st, ok := res.PodGroups[job]; ok {
				row.phase = st.Phase
			}
			jobs[job] = row
		}
		if node := cmp.Or(res.Binds[key], p.Spec.NodeName); node != "" {
			if !contains(res.Evictions, key) {
				row.bound++
				row.nodes[node]++
			}
			continue
		}
		row.pending++
		row.pendingPods = append(row.pendingPods, key)
	}
	names := make([]string, 0, len(jobs))
	for n := range jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "JOB\tQUEUE\tPHASE\tBOUND\tPENDING\n")
	for _, n := range names {
		r := jobs[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", n, r.queue, r.phase, r.bound, r.pending)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d session(s), %d bind(s), %d eviction(s)\n", res.Cycles, len(res.Binds), len(res.Evictions))
	var placed []string
	for _, n := range names {
		if len(jobs[n].nodes) > 0 {
			placed = append(placed, "  "+n+": "+nodeCounts(jobs[n].nodes))
		}
	}
	if len(placed) > 0 {
		fmt.Fprintf(w, "\nNodes of bound pods:\n%s\n", strings.Join(placed, "\n"))
	}
	var pending []string
	for _, n := range names {
		pending = append(pending, pendingLines(n, jobs[n].pendingPods, res.Unschedulable)...)
	}
	if len(pending) > 0 {
		fmt.Fprintf(w, "\nPending pods:\n%s\n", strings.Join(pending, "\n"))
	}
	return nil
}

// nodeCounts reads "node-1 ×2, node-2" for pods on nodes.
func nodeCounts(nodes map[string]int) string {
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if nodes[n] > 1 {
			names[i] = fmt.Sprintf("%s ×%d", n, nodes[n])
		}
	}
	return strings.Join(names, ", ")
}

// pendingLines says why a job's pending pods are pending: a line per
// reason, naming the pod when one has it, else how many and which (a
// gang's members mostly share their reason).
func pendingLines(job string, pods []string, reasons map[string]string) []string {
	byReason := map[string][]string{}
	var order []string
	for _, p := range pods {
		reason := strings.TrimSpace(reasons[p])
		if reason == "" {
			reason = "not considered: its PodGroup is not admitted (Pending) or its queue is unknown"
		}
		if _, seen := byReason[reason]; !seen {
			order = append(order, reason)
		}
		byReason[reason] = append(byReason[reason], p)
	}
	var out []string
	for _, reason := range order {
		group := byReason[reason]
		if len(group) == 1 {
			out = append(out, fmt.Sprintf("  %s: %s", group[0], reason))
			continue
		}
		names := group
		if len(names) > 3 {
			names = append(names[:2:2], fmt.Sprintf("… %s", group[len(group)-1]))
		}
		out = append(out, fmt.Sprintf("  %s: %d pods (%s): %s", job, len(group), strings.Join(names, ", "), reason))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

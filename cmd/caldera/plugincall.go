package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	schedconf "github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

// allCallableHooks are the hooks `caldera plugin call` asks, and what it
// asks them about.
func allCallableHooks() map[string]string {
	all := maps.Clone(callableHooks)
	maps.Copy(all, candidateHooks)
	return all
}

// callableHooks are those that answer about each object alone.
var callableHooks = map[string]string{
	"pre_predicate":    "each pending pod",
	"predicate_batch":  "each pending pod on each node",
	"node_order_batch": "each pending pod on each node",
	"job_order_keys":   "the jobs, sorted",
	"task_order_keys":  "each job's pending pods, sorted",
	"queue_order_keys": "the queues, sorted",
	"job_ready":        "each job",
	"job_pipelined":    "each job",
	"job_valid":        "each job",
	"job_enqueueable":  "each job",
	"job_starving":     "each job",
	"overused":         "each queue",
}

func newPluginCallCommand() *cobra.Command {
	var hooks []string
	for h, what := range allCallableHooks() {
		hooks = append(hooks, fmt.Sprintf("  %-17s %s", h, what))
	}
	sort.Strings(hooks)
	cmd := &cobra.Command{
		Use:   "call FILE.wasm HOOK --cluster FILE",
		Short: "Ask one hook of a module about a cluster and print its answers",
		Long: `Opens one session on --cluster's manifests with the module as the only plugin
(named as its file, without .wasm, with the --arg arguments) and asks HOOK, through
the scheduler's own dispatch, about:

` + strings.Join(hooks, "\n") + `

--pod limits the pods asked about to one. Prints a table, or with --output json one
object: {"hook", "answers": [{"pod"|"job"|"queue", "node", "answer"}]}.`,
		Args: cobra.ExactArgs(2),
	}
	f := cmd.Flags()
	f.String("cluster", "", "manifest file of the cluster (required)")
	f.String("pod", "", "namespace/name of the one pending pod to ask about (default: every pending pod)")
	f.StringArray("arg", nil, "an argument of the module, key=value (the value read as YAML: 3 is an integer, true a boolean); repeatable")
	f.String("output", "table", "output format: table or json")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		v := settings(cmd.Flags())
		output := v.GetString("output")
		if output != "table" && output != "json" {
			return fmt.Errorf("--output: expected table or json, got %q", output)
		}
		if v.GetString("cluster") == "" {
			return fmt.Errorf("--cluster is required")
		}
		argList, _ := cmd.Flags().GetStringArray("arg")
		moduleArgs, err := parseArgFlags(argList)
		if err != nil {
			return err
		}
		cache := cacheOf(cmd)
		defer cache.Close(context.Background())
		p, err := loadForInspection(args[0], cache)
		if err != nil {
			return err
		}
		defer p.Close(context.Background())
		answers, err := callHook(cmd.Context(), p, args[0], args[1], v.GetString("cluster"), v.GetString("pod"), moduleArgs)
		if err != nil {
			return err
		}
		if output == "json" {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"hook": args[1], "answers": answers})
		}
		return printAnswers(cmd.OutOrStdout(), answers)
	}
	return cmd
}

// parseArgFlags reads --arg key=value flags; values are YAML scalars.
func parseArgFlags(list []string) (map[string]any, error) {
	out := map[string]any{}
	for _, item := range list {
		key, text, ok := strings.Cut(item, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("--arg %q: expected key=value", item)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("--arg %s: given twice", key)
		}
		var value any
		if err := yaml.Unmarshal([]byte(text), &value); err != nil {
			return nil, fmt.Errorf("--arg %s: %v", key, err)
		}
		out[key] = value
	}
	return out, nil
}

// answer is one of the hook's answers: about a pod (on a node), a job or
// a queue.
type answer struct {
	Pod    string `json:"pod,omitempty"`
	Job    string `json:"job,omitempty"`
	Queue  string `json:"queue,omitempty"`
	Node   string `json:"node,omitempty"`
	Answer any    `json:"answer"`
}

// callHook opens a session with the module alone and asks the hook.
func callHook(ctx context.Context, p *runtime.Plugin, path, hook, clusterPath, pod string, args map[string]any) ([]answer, error) {
	if _, ok := allCallableHooks()[hook]; !ok {
		return nil, fmt.Errorf("hook %q: plugin call asks %s", hook, strings.Join(slices.Sorted(maps.Keys(allCallableHooks())), ", "))
	}
	if !slices.Contains(p.Descriptor().Hooks, hook) {
		return nil, fmt.Errorf("%s does not declare hook %s (it declares %s)", path, hook, strings.Join(p.Descriptor().Hooks, ", "))
	}
	cluster, err := simulator.LoadCluster(clusterPath)
	if err != nil {
		return nil, err
	}
	snapshot, err := simulator.Snapshot(ctx, cluster, []string{"volcano"})
	if err != nil {
		return nil, err
	}
	name := p.Descriptor().Name
	registry := framework.Registry{name: runtime.Factory(name, p, runtime.Policy{})}
	entry, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	cfg, err := schedconf.Parse([]byte("actions: allocate\ntiers:\n- plugins: ["+string(entry)+"]\n"), "--arg", framework.Validator{Plugins: registry, Actions: actions.Registry()})
	if err != nil {
		return nil, err
	}
	ssn, err := framework.OpenSession(&snapshotCache{snapshot}, registry, cfg)
	if err != nil {
		return nil, err
	}
	defer ssn.Close()
	if p.Failures() > 0 {
		return nil, fmt.Errorf("session_open failed: %w", p.FirstFailure())
	}
	answers, err := askHook(ssn, hook, pod)
	if err == nil && p.Failures() > 0 {
		err = fmt.Errorf("%s failed: %w", hook, p.FirstFailure())
	}
	return answers, err
}

func askHook(ssn *framework.Session, hook, pod string) ([]answer, error) {
	var jobs []*api.JobInfo
	for _, j := range ssn.Jobs {
		jobs = append(jobs, j)
	}
	sort.Slice(jobs, func(i, k int) bool { return jobs[i].UID < jobs[k].UID })
	var tasks []*api.TaskInfo
	for _, j := range jobs {
		for _, t := range j.TaskStatusIndex[api.Pending] {
			if pod == "" || t.Key() == pod {
				tasks = append(tasks, t)
			}
		}
	}
	sort.Slice(tasks, func(i, k int) bool { return tasks[i].Key() < tasks[k].Key() })
	if pod != "" && len(tasks) == 0 {
		return nil, fmt.Errorf("--pod %s: no such pending pod in the cluster", pod)
	}
	if _, ok := candidateHooks[hook]; ok {
		return askCandidates(ssn, hook, jobs, tasks)
	}
	nodes := ssn.NodeList
	var out []answer
	switch hook {
	case "pre_predicate":
		for _, t := range tasks {
			out = append(out, answer{Pod: t.Key(), Answer: verdict(ssn.PrePredicateFn(t))})
		}
	case "predicate_batch":
		for _, t := range tasks {
			for _, n := range nodes {
				out = append(out, answer{Pod: t.Key(), Node: n.Name, Answer: verdict(ssn.PredicateFn(t, n))})
			}
		}
	case "node_order_batch":
		for _, t := range tasks {
			scores := make([]float64, len(nodes))
			if err := ssn.BatchNodeOrderFn(t, nodes, scores); err != nil {
				return nil, err
			}
			for i, n := range nodes {
				out = append(out, answer{Pod: t.Key(), Node: n.Name, Answer: scores[i]})
			}
		}
	case "job_order_keys":
		sorted := slices.Clone(jobs)
		sort.SliceStable(sorted, func(i, k int) bool { return ssn.JobOrderFn(sorted[i], sorted[k]) })
		for i, j := range sorted {
			out = append(out, answer{Job: string(j.UID), Answer: i + 1})
		}
	case "task_order_keys":
		for _, j := range jobs {
			var pending []*api.TaskInfo
			for _, t := range tasks {
				if t.Job == j.UID {
					pending = append(pending, t)
				}
			}
			sort.SliceStable(pending, func(i, k int) bool { return ssn.TaskOrderFn(pending[i], pending[k]) })
			for i, t := range pending {
				out = append(out, answer{Job: string(j.UID), Pod: t.Key(), Answer: i + 1})
			}
		}
	case "queue_order_keys":
		var queues []*api.QueueInfo
		for _, q := range ssn.Queues {
			queues = append(queues, q)
		}
		sort.Slice(queues, func(i, k int) bool { return queues[i].Name < queues[k].Name })
		sort.SliceStable(queues, func(i, k int) bool { return ssn.QueueOrderFn(queues[i], queues[k]) })
		for i, q := range queues {
			out = append(out, answer{Queue: q.Name, Answer: i + 1})
		}
	case "overused":
		var names []string
		for _, q := range ssn.Queues {
			names = append(names, q.Name)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, answer{Queue: n, Answer: ssn.Overused(ssn.Queues[api.QueueID(n)])})
		}
	default: // the job hooks
		ask := map[string]func(*api.JobInfo) any{
			"job_ready":       func(j *api.JobInfo) any { return ssn.JobReady(j) },
			"job_pipelined":   func(j *api.JobInfo) any { return ssn.JobPipelined(j) },
			"job_enqueueable": func(j *api.JobInfo) any { return ssn.JobEnqueueable(j) },
			"job_starving":    func(j *api.JobInfo) any { return ssn.JobStarving(j) },
			"job_valid": func(j *api.JobInfo) any {
				if r := ssn.JobValid(j); r != nil && !r.Pass {
					return "invalid: " + r.Reason + ": " + r.Message
				}
				return "valid"
			},
		}[hook]
		for _, j := range jobs {
			out = append(out, answer{Job: string(j.UID), Answer: ask(j)})
		}
	}
	return out, nil
}

func verdict(s *framework.Status) string {
	if s.IsSuccess() {
		return "pass"
	}
	return "fail: " + s.Message()
}

// printAnswers prints the answers as a table whose columns are the ones
// the answers fill.
func printAnswers(w io.Writer, answers []answer) error {
	if len(answers) == 0 {
		_, err := fmt.Fprintln(w, "nothing to ask about: no pending pod, job or queue")
		return err
	}
	a0 := answers[0]
	var head []string
	for _, c := range []struct {
		name string
		used bool
	}{{"JOB", a0.Job != ""}, {"QUEUE", a0.Queue != ""}, {"POD", a0.Pod != ""}, {"NODE", a0.Node != ""}} {
		if c.used {
			head = append(head, c.name)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append(head, "ANSWER"), "\t"))
	for _, a := range answers {
		var row []string
		for _, h := range head {
			row = append(row, map[string]string{"JOB": a.Job, "QUEUE": a.Queue, "POD": a.Pod, "NODE": a.Node}[h])
		}
		fmt.Fprintln(tw, strings.Join(append(row, fmt.Sprint(a.Answer)), "\t"))
	}
	return tw.Flush()
}

// snapshotCache serves one snapshot to a session that binds nothing.
type snapshotCache struct{ snapshot *api.ClusterInfo }

func (c *snapshotCache) Snapshot() *api.ClusterInfo         { return c.snapshot }
func (c *snapshotCache) Bind(*api.TaskInfo, string) error   { return nil }
func (c *snapshotCache) Evict(*api.TaskInfo, string) error  { return nil }
func (c *snapshotCache) UpdateJobStatus(*api.JobInfo, bool) {}

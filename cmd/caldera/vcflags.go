package main

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// vc-scheduler's flags beyond those `caldera run` shares with it by name
// (run.go, leader.go), so that a Volcano installation can start Caldera
// with the arguments it gives its own scheduler. Each is either applied
// with Volcano's meaning, accepted with a one-line notice saying why it
// changes nothing here, or refused when the value asks for something
// Caldera does not do.

// noticeFlags have no meaning for Caldera: setting one logs why.
var noticeFlags = map[string]string{
	"logtostderr":                      "Caldera always logs to standard error",
	"node-worker-threads":              "nodes are synced by the informers' own workers",
	"plugins-dir":                      "Caldera loads no Go plugins; Wasm modules come from --plugin-dir",
	"feature-gates":                    "Volcano's feature gates select Volcano's code paths; Caldera's behaviour is set by its configuration",
	"ignored-provisioners":             "Caldera does not count CSI volumes as node resources as Volcano's cache does (README), so there is no count to leave a provisioner out of",
	"gate-removal-worker-num":          "Caldera does not remove scheduling gates",
	"cache-dumper":                     "use `caldera simulate` on exported manifests instead of a cache dump",
	"cache-dump-dir":                   "use `caldera simulate` on exported manifests instead of a cache dump",
	"resync-period":                    "Caldera's informers never resync; every change arrives as an event",
	"resource-sync-timeout":            "Caldera waits until its informers have synced, however long that takes",
	"disable-default-scheduler-config": "Caldera never falls back to a default configuration: an invalid --scheduler-conf stops it",
	"ca-cert-file":                     "Caldera's endpoints serve plain HTTP",
	"tls-cert-file":                    "Caldera's endpoints serve plain HTTP",
	"tls-private-key-file":             "Caldera's endpoints serve plain HTTP",
	"scheduler-sharding-name":          "only --scheduler-sharding-mode=none is supported",
}

func addVolcanoFlags(f *pflag.FlagSet) {
	f.Bool("enable-healthz", true, "serve /healthz and /readyz on --healthz-address (Volcano's default is false; Caldera's probes need them)")
	f.Bool("enable-metrics", true, "serve /metrics on --listen-address")
	f.Bool("enable-pprof", false, "serve Go's /debug/pprof/ on --listen-address")
	f.Bool("version", false, "print the version and exit")
	d := actions.DefaultNodeSearch()
	f.Int("minimum-feasible-nodes", d.MinNodesToFind, "clusters this small are searched in full, and no node search stops with fewer feasible nodes (actions' minNodesToFind overrides it)")
	f.Int("minimum-percentage-nodes-to-find", d.MinPercentageOfNodesToFind, "floor of the adaptive share of nodes a search looks for (actions' minPercentageOfNodesToFind overrides it)")
	f.Int("percentage-nodes-to-find", d.PercentageOfNodesToFind, "share of nodes a search looks for; 0 or less is adaptive (actions' percentageOfNodesToFind overrides it)")
	f.StringSlice("node-selector", nil, "label:value pairs; only nodes carrying one of them are scheduled onto (repeat the flag or separate with commas)")
	f.Bool("priority-class", true, "give jobs the priority of their PodGroup's priority class; false gives every job priority 0")
	f.String("scheduler-sharding-mode", "none", "node sharding between schedulers; only none is supported")

	f.Bool("logtostderr", true, "accepted for Volcano's sake: "+noticeFlags["logtostderr"])
	f.Uint32("node-worker-threads", 20, "accepted for Volcano's sake: "+noticeFlags["node-worker-threads"])
	f.String("plugins-dir", "", "accepted for Volcano's sake: "+noticeFlags["plugins-dir"])
	f.String("feature-gates", "", "accepted for Volcano's sake: "+noticeFlags["feature-gates"])
	f.StringSlice("ignored-provisioners", nil, "accepted for Volcano's sake: "+noticeFlags["ignored-provisioners"])
	f.Int("gate-removal-worker-num", 5, "accepted for Volcano's sake: "+noticeFlags["gate-removal-worker-num"])
	f.Bool("cache-dumper", true, "accepted for Volcano's sake: "+noticeFlags["cache-dumper"])
	f.String("cache-dump-dir", "/tmp", "accepted for Volcano's sake: "+noticeFlags["cache-dump-dir"])
	f.Duration("resync-period", 0, "accepted for Volcano's sake: "+noticeFlags["resync-period"])
	f.Duration("resource-sync-timeout", 60*time.Second, "accepted for Volcano's sake: "+noticeFlags["resource-sync-timeout"])
	f.Bool("disable-default-scheduler-config", false, "accepted for Volcano's sake: "+noticeFlags["disable-default-scheduler-config"])
	f.Bool("csi-storage", false, "check CSI drivers' published storage capacity (CSIStorageCapacity) when a claim is to be provisioned; off by default, as in Volcano")
	f.String("ca-cert-file", "", "accepted for Volcano's sake: "+noticeFlags["ca-cert-file"])
	f.String("tls-cert-file", "", "accepted for Volcano's sake: "+noticeFlags["tls-cert-file"])
	f.String("tls-private-key-file", "", "accepted for Volcano's sake: "+noticeFlags["tls-private-key-file"])
	f.String("scheduler-sharding-name", "volcano", "accepted for Volcano's sake: "+noticeFlags["scheduler-sharding-name"])
}

// volcanoOptions are what vc-scheduler's own flags ask of the run.
type volcanoOptions struct {
	search       actions.NodeSearch
	nodeSelector cache.NodeSelector
	// ignorePriorityClasses is --priority-class=false.
	ignorePriorityClasses bool
	// trackStorageCapacity is --csi-storage.
	trackStorageCapacity bool
}

// checkVolcanoFlags refuses the values Caldera does not implement, logs a
// notice for each flag given that means nothing here, and returns what the
// others ask for.
func checkVolcanoFlags(f *pflag.FlagSet) (volcanoOptions, error) {
	var o volcanoOptions
	entries, _ := f.GetStringSlice("node-selector")
	selector, err := cache.ParseNodeSelector(entries)
	if err != nil {
		return o, fmt.Errorf("--node-selector: %w", err)
	}
	o.nodeSelector = selector
	if on, _ := f.GetBool("priority-class"); !on {
		o.ignorePriorityClasses = true
	}
	o.trackStorageCapacity, _ = f.GetBool("csi-storage")
	if mode, _ := f.GetString("scheduler-sharding-mode"); mode != "none" {
		return o, fmt.Errorf("--scheduler-sharding-mode=%s is not implemented: only none is supported", mode)
	}
	f.VisitAll(func(fl *pflag.Flag) {
		if why, ok := noticeFlags[fl.Name]; ok && fl.Changed {
			klog.InfoS("Flag accepted for Volcano's sake; it changes nothing here", "flag", "--"+fl.Name, "why", why)
		}
	})
	o.search.MinNodesToFind, _ = f.GetInt("minimum-feasible-nodes")
	o.search.MinPercentageOfNodesToFind, _ = f.GetInt("minimum-percentage-nodes-to-find")
	o.search.PercentageOfNodesToFind, _ = f.GetInt("percentage-nodes-to-find")
	return o, nil
}

// version is what --version prints: the module's version as the Go
// toolchain recorded it, and the plugin ABI version the host speaks.
func version() string {
	v := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		v = info.Main.Version
	}
	return fmt.Sprintf("caldera %s, plugin ABI %d.%d", v, abi.Major, abi.Minor)
}

// shellRedirectOnly refuses positional arguments but "2>&1", which
// Volcano's Helm chart passes to its scheduler as an argument (a
// container's args go to no shell) and vc-scheduler ignores.
func shellRedirectOnly(_ *cobra.Command, args []string) error {
	for _, a := range args {
		if a != "2>&1" {
			return fmt.Errorf("unexpected argument %q: caldera run takes flags only", a)
		}
	}
	if len(args) > 0 {
		klog.InfoS("Argument accepted for Volcano's sake; it changes nothing here", "argument", "2>&1", "why", "no shell reads a container's arguments")
	}
	return nil
}

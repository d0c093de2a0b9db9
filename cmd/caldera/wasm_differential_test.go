package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/deviceshare"
	schedconf "github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/randomcluster"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/scenario"
)

// pluginDir is where `make plugins` puts the example modules.
const pluginDir = "../../build/plugins"

// requirePorts skips when the Wasm ports are not built, unless
// CALDERA_REQUIRE_PLUGINS is set (make test-all sets it), in which case
// their absence fails the test.
func requirePorts(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(pluginDir, n+".wasm")); err != nil {
			if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
				t.Fatalf("%s.wasm is missing: %v (make plugins builds it)", n, err)
			}
			t.Skipf("%s.wasm is not built; run make plugins", n)
		}
	}
}

// withPort rewrites a configuration so that tier entry native names the
// module port instead, keeping its arguments.
func withPort(conf []byte, native, port string) []byte {
	re := regexp.MustCompile(`(?m)(name:\s*)` + regexp.QuoteMeta(native) + `(\s*[}\n,]|$)`)
	return re.ReplaceAll(conf, []byte("${1}"+port+"${2}"))
}

// ported lists the native plugins that have Wasm ports in
// examples/plugins, built by make plugins as <name>.go.wasm and
// <name>.tinygo.wasm.
var ported = []string{"binpack", "priority", "gang", "conformance", "overcommit", "drf", "predicates", "nodeorder", "proportion", "pdb", "network-topology-aware", "deviceshare"}

// rustPorted lists the native plugins that also have Rust ports
// (examples/plugins/<name>/rust), built by make plugins as <name>.rust.wasm.
var rustPorted = []string{"binpack", "priority", "gang", "drf", "overcommit", "conformance", "proportion", "network-topology-aware", "nodeorder", "predicates", "deviceshare"}

// portBuilds are the builds of the ports, each with the plugins it has.
var portBuilds = []struct {
	build string
	names []string
}{{"go", ported}, {"tinygo", ported}, {"rust", rustPorted}}

// Every scenario folder, and random clusters, decide exactly the same with
// all of a build's ports in place of the native plugins they serve (Go,
// TinyGo and Rust builds, one subtest each) as with the native plugins
// alone. Where they do not, each port is then run alone in the native
// configuration, to say which differs: running each port alone every time
// made this package take 1,400-1,800 s on the 2-core machine, against
// 600-625 s now. Two ports whose differences cancel in combination would
// go unseen.
func TestPortsDecideAsNative(t *testing.T) {
	dir := t.TempDir()
	type run struct{ name, cluster, conf string }
	var runs []run
	for _, sc := range scenarioDirs(t) {
		if hasSubGroupPolicy(t, filepath.Join(sc, "cluster.yaml")) {
			// The Wasm view carries no sub-groups: such jobs are refused
			// under ports (TestPortsRefuseSubGroupJobs), not decided.
			continue
		}
		conf, err := os.ReadFile(filepath.Join(sc, "scheduler.yaml"))
		if os.IsNotExist(err) {
			conf, err = schedconf.DefaultYAML(), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{filepath.Base(sc), filepath.Join(sc, "cluster.yaml"), string(conf)})
	}
	full := `actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}, {name: binpack, arguments: {binpack.weight: 10, binpack.resources: nvidia.com/gpu, binpack.resources.nvidia.com/gpu: 5}}]
`
	for seed := int64(1); seed <= randomClusters(t); seed++ {
		cluster := filepath.Join(dir, fmt.Sprintf("random-%d.yaml", seed))
		if err := os.WriteFile(cluster, randomcluster.Generate(seed), 0o644); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{filepath.Base(cluster), cluster, full})
	}
	// The native decisions, computed once for whichever builds run.
	natives := map[string]*simulator.Result{}
	native := func(t *testing.T, r run) *simulator.Result {
		if want, ok := natives[r.name]; ok {
			return want
		}
		conf := filepath.Join(dir, "native.yaml")
		if err := os.WriteFile(conf, []byte(r.conf), 0o644); err != nil {
			t.Fatal(err)
		}
		natives[r.name] = runSimulate(t, "--cluster", r.cluster, "--scheduler-conf", conf, "--plugin-dir", pluginDir)
		return natives[r.name]
	}
	for _, pb := range portBuilds {
		t.Run(pb.build, func(t *testing.T) {
			var builds []string
			for _, name := range pb.names {
				builds = append(builds, name+"."+pb.build)
			}
			requirePorts(t, builds...)
			for _, r := range runs {
				want := native(t, r)
				all := []byte(r.conf)
				var used []string
				for _, name := range pb.names {
					if usesPlugin(r.conf, name) {
						all = withPort(all, name, name+"."+pb.build)
						used = append(used, name)
					}
				}
				if len(used) == 0 || differs(t, r.cluster, all, want) == nil {
					continue
				}
				alone := false
				for _, name := range used {
					alone = check(t, r.name, r.cluster, withPort([]byte(r.conf), name, name+"."+pb.build), name+"."+pb.build, want) || alone
				}
				if !alone { // only together
					check(t, r.name, r.cluster, all, "every port ("+pb.build+")", want)
				}
			}
		})
	}
}

func hasSubGroupPolicy(t *testing.T, cluster string) bool {
	t.Helper()
	b, err := os.ReadFile(cluster)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), "subGroupPolicy:")
}

// A job with sub-group policies is placed by the native plugins and
// refused, with every pending pod saying why, when a Wasm port decides its
// gang or its hypernodes: the Wasm view carries no sub-groups. A port
// whose hooks do not depend on sub-groups (predicates) decides as native.
func TestPortsRefuseSubGroupJobs(t *testing.T) {
	folder := "../../testdata/scenarios/volcano/topology-subgroup-hard-hard-within-tier"
	conf, err := os.ReadFile(filepath.Join(folder, "scheduler.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cluster := filepath.Join(folder, "cluster.yaml")
	native := runSimulate(t, "--cluster", cluster, "--scheduler-conf", filepath.Join(folder, "scheduler.yaml"))
	if len(native.Binds) == 0 {
		t.Fatalf("native plugins bound nothing: %+v", native.Unschedulable)
	}
	for _, pb := range portBuilds {
		name := "predicates." + pb.build
		t.Run(name, func(t *testing.T) {
			requirePorts(t, name)
			path := filepath.Join(t.TempDir(), "scheduler.yaml")
			if err := os.WriteFile(path, withPort(conf, "predicates", name), 0o644); err != nil {
				t.Fatal(err)
			}
			got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", pluginDir)
			if !reflect.DeepEqual(got.Binds, native.Binds) {
				t.Errorf("binds %v, want the native %v", got.Binds, native.Binds)
			}
		})
	}
	for _, port := range []string{"gang", "network-topology-aware"} {
		for _, pb := range portBuilds {
			name := port + "." + pb.build
			t.Run(name, func(t *testing.T) {
				requirePorts(t, name)
				path := filepath.Join(t.TempDir(), "scheduler.yaml")
				if err := os.WriteFile(path, withPort(conf, port, name), 0o644); err != nil {
					t.Fatal(err)
				}
				got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", pluginDir)
				if len(got.Binds) != 0 {
					t.Errorf("binds %v, want none", got.Binds)
				}
				if len(got.Unschedulable) == 0 {
					t.Fatal("no pod says why it is pending")
				}
				for pod, reason := range got.Unschedulable {
					if !strings.Contains(reason, "spec.subGroupPolicy") || !strings.Contains(reason, name) {
						t.Errorf("%s: reason %q does not name spec.subGroupPolicy and plugin %s", pod, reason, name)
					}
				}
			})
		}
	}
}

// usesPlugin reports whether a configuration has a tier entry named name
// that a port can serve. The ports are flat: a plugin the configuration
// gives enableHierarchy: true stays native (a port serving the name is
// refused at load).
func usesPlugin(conf, name string) bool {
	return string(withPort([]byte(conf), name, "\x00")) != conf && !hierarchical(conf, name)
}

func hierarchical(conf, name string) bool {
	cfg, err := schedconf.Parse([]byte(conf), "scheduler.yaml", nil)
	if err != nil {
		return false
	}
	for _, tier := range cfg.Tiers {
		for _, opt := range tier.Plugins {
			if opt.Name == name && schedconf.IsEnabled(opt.EnabledHierarchy) {
				return true
			}
		}
	}
	return false
}

// check runs a configuration and compares its decisions with want.
// check reports, and returns, whether the configuration decides
// otherwise than want on the cluster.
func check(t *testing.T, scenario, cluster string, conf []byte, what string, want *simulator.Result) bool {
	t.Helper()
	got := differs(t, cluster, conf, want)
	if got != nil {
		t.Errorf("%s with %s decided differently:\nnative %+v\nport   %+v", scenario, what, want, got)
	}
	return got != nil
}

// differs runs the configuration on the cluster and returns its result
// when it is not want's, nil when it is.
func differs(t *testing.T, cluster string, conf []byte, want *simulator.Result) *simulator.Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		t.Fatal(err)
	}
	got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", pluginDir)
	if reflect.DeepEqual(withoutTimes(want), withoutTimes(got)) {
		return nil
	}
	return got
}

// withoutTimes returns the result with the time stamps written at bind
// (deviceshare's volcano.sh/predicate-time) blanked: the clock, not the
// decision, sets them.
func withoutTimes(res *simulator.Result) *simulator.Result {
	c := *res
	c.BindAnnotations = map[string]map[string]string{}
	for pod, anns := range res.BindAnnotations {
		blank := maps.Clone(anns)
		if _, ok := blank[deviceshare.PredicateTimeAnnotation]; ok {
			blank[deviceshare.PredicateTimeAnnotation] = "<time>"
		}
		c.BindAnnotations[pod] = blank
	}
	return &c
}

// wasmPolicies are the example policies no native plugin offers, and the
// builds make plugins makes of each (<name>.<build>.wasm).
var wasmPolicies = []struct {
	name   string
	builds []string
}{
	{"draining", []string{"tinygo", "go"}},
	{"gpu-frag", []string{"tinygo", "go"}},
	{"deadline", []string{"rust"}},
}

// TestWasmScenarios runs every folder of testdata/wasm-scenarios, whose
// configurations name policies that exist only as Wasm modules, once with
// each build of those policies (a configuration names policies of the same
// builds).
func TestWasmScenarios(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/wasm-scenarios/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no wasm scenario folders: %v", err)
	}
	for _, dir := range dirs {
		conf, err := os.ReadFile(filepath.Join(dir, "scheduler.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		folder, err := scenario.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		// The builds of the policies the configuration names.
		var policies, builds []string
		for _, p := range wasmPolicies {
			if strings.Contains(string(conf), p.name) {
				policies, builds = append(policies, p.name), p.builds
			}
		}
		for _, build := range builds {
			t.Run(filepath.Base(dir)+"/"+build, func(t *testing.T) {
				text := string(conf)
				for _, policy := range policies {
					requirePorts(t, policy+"."+build)
					text = string(withPort([]byte(text), policy, policy+"."+build))
				}
				path := filepath.Join(t.TempDir(), "scheduler.yaml")
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				got := runSimulate(t, "--cluster", folder.Cluster(), "--scheduler-conf", path,
					"--plugin-dir", pluginDir, "--cycles", strconv.Itoa(folder.Expect.Sessions))
				for _, d := range folder.Expect.Check(got) {
					t.Errorf("%s (%s)", d, folder.Expect.Source)
				}
				if strings.Contains(text, "draining") {
					for pod, node := range got.Binds {
						if node == "n1" {
							t.Errorf("%s was bound to draining node n1", pod)
						}
					}
				}
			})
		}
	}
}

// randomClusters is how many random clusters the differential test runs:
// 8 in the ordinary test run, more with CALDERA_RANDOM_CLUSTERS (the
// closing runs of a port change use hundreds).
func randomClusters(t *testing.T) int64 {
	v := os.Getenv("CALDERA_RANDOM_CLUSTERS")
	if v == "" {
		return 8
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		t.Fatalf("CALDERA_RANDOM_CLUSTERS=%q: want a positive number", v)
	}
	return n
}

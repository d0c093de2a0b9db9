package main

import (
	"maps"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// volcanoChartArgs are the arguments Volcano's Helm chart gives its
// scheduler (installer/helm/chart/volcano/templates/scheduler.yaml, every
// optional value set), "2>&1" included: no shell reads a container's args.
var volcanoChartArgs = []string{
	"--logtostderr",
	"--scheduler-conf=/volcano.scheduler/volcano-scheduler.conf",
	"--scheduler-name=volcano",
	"--enable-healthz=true",
	"--enable-metrics=true",
	"--enable-pprof=true",
	"--leader-elect=true",
	"--leader-elect-resource-namespace=volcano-system",
	"--kube-api-qps=2000",
	"--kube-api-burst=2000",
	"--schedule-period=1s",
	"--node-worker-threads=20",
	"--percentage-nodes-to-find=100",
	"--plugins-dir=/plugins",
	"--feature-gates=PodDisruptionBudgetsSupport=true",
	"--ignored-provisioners=rancher.io/local-path",
	"--scheduler-sharding-mode=none",
	"-v=3",
	"2>&1",
}

// parseRun parses args as `caldera run` does and checks the Volcano flags.
func parseRun(t *testing.T, args []string) (volcanoOptions, error) {
	t.Helper()
	root := newRootCommand()
	run, rest, err := root.Find(append([]string{"run"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	if err := run.ParseFlags(rest); err != nil {
		return volcanoOptions{}, err
	}
	if err := run.Args(run, run.Flags().Args()); err != nil {
		return volcanoOptions{}, err
	}
	return checkVolcanoFlags(run.Flags())
}

func TestRunTakesVolcanoChartArguments(t *testing.T) {
	vo, err := parseRun(t, volcanoChartArgs)
	if err != nil {
		t.Fatalf("the chart's arguments: %v", err)
	}
	if want := (actions.NodeSearch{MinNodesToFind: 100, MinPercentageOfNodesToFind: 5, PercentageOfNodesToFind: 100}); vo.search != want {
		t.Errorf("node search %+v, want %+v", vo.search, want)
	}
	if len(vo.nodeSelector) != 0 || vo.ignorePriorityClasses {
		t.Errorf("node selector %v, priority classes ignored %v: want every node and priority classes read", vo.nodeSelector, vo.ignorePriorityClasses)
	}
}

// Every flag of vc-scheduler is taken alone: applied, accepted with a
// notice, or refused naming itself when its value asks for something not
// implemented.
func TestRunTakesEachVolcanoFlagAlone(t *testing.T) {
	accepted := []string{
		"--enable-healthz=false", "--enable-metrics=false", "--enable-pprof=true",
		"--minimum-feasible-nodes=50", "--minimum-percentage-nodes-to-find=10", "--percentage-nodes-to-find=30",
		"--priority-class=true", "--priority-class=false", "--scheduler-sharding-mode=none",
		"--node-selector=volcano.sh/role:train", "--node-selector= a : b ,c:d",
		"--logtostderr=false", "--node-worker-threads=5", "--plugins-dir=/p", "--feature-gates=A=true",
		"--ignored-provisioners=a,b", "--gate-removal-worker-num=2", "--cache-dumper=false", "--cache-dump-dir=/d",
		"--resync-period=30s", "--resource-sync-timeout=1m", "--disable-default-scheduler-config=true",
		"--csi-storage=false", "--ca-cert-file=/c", "--tls-cert-file=/c", "--tls-private-key-file=/k",
		"--scheduler-sharding-name=s", "--master=https://x", "--kubeconfig=/k", "--scheduler-conf=/c",
		"--schedule-period=2s", "--default-queue=q", "--kube-api-qps=5", "--kube-api-burst=5",
		"--listen-address=:1", "--healthz-address=:2", "--leader-elect=true", "--lock-object-namespace=n",
		"--leader-elect-resource-namespace=n", "--leader-elect-resource-name=n", "--leader-elect-lease-duration=15s",
		"--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s", "--version=false",
	}
	for _, arg := range accepted {
		if _, err := parseRun(t, []string{arg}); err != nil {
			t.Errorf("%s: %v", arg, err)
		}
	}
	vo, _ := parseRun(t, []string{"--minimum-feasible-nodes=50", "--minimum-percentage-nodes-to-find=10", "--percentage-nodes-to-find=30"})
	if want := (actions.NodeSearch{MinNodesToFind: 50, MinPercentageOfNodesToFind: 10, PercentageOfNodesToFind: 30}); vo.search != want {
		t.Errorf("node search %+v, want %+v", vo.search, want)
	}
	vo, _ = parseRun(t, []string{"--node-selector=volcano.sh/role:train", "--node-selector= a : b ,c:d", "--priority-class=false"})
	if want := (cache.NodeSelector{"volcano.sh/role:train": {}, "a:b": {}, "c:d": {}}); !maps.Equal(vo.nodeSelector, want) {
		t.Errorf("node selector %v, want %v", vo.nodeSelector, want)
	}
	if !vo.ignorePriorityClasses {
		t.Error("--priority-class=false: priority classes still read")
	}
	for arg, names := range map[string]string{
		"--node-selector=volcano.sh/role": `--node-selector: node selector "volcano.sh/role": expected label:value`,
		"--node-selector=role:":           `"role:"`,
		"--scheduler-sharding-mode=hard":  "--scheduler-sharding-mode=hard",
		"extra":                           `"extra"`,
	} {
		if _, err := parseRun(t, []string{arg}); err == nil || !strings.Contains(err.Error(), names) {
			t.Errorf("%s: err %v, want a refusal naming %s", arg, err, names)
		}
	}
}

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/caldera-scheduler/caldera/e2e/harness"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
)

// hotReloadConf is Volcano's default configuration with plugin "policy",
// whichever module serves it, filtering or scoring nodes.
const hotReloadConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}, {name: policy}]
`

// TestHotReloadSwapsModuleWithoutRestart: `caldera run` reads its
// configuration and plugin "policy" from a directory laid out and updated
// as the kubelet lays out and updates a ConfigMap volume. The draining
// module keeps pods off the draining node and leaves two pending; a broken
// module is refused (a log line naming the file, a Warning Event on the
// scheduler's Pod, the failure metric) while draining keeps serving; then
// binpack's module lands and the pending pods are placed on the draining
// node, by the same process.
func TestHotReloadSwapsModuleWithoutRestart(t *testing.T) {
	draining, binpack := builtModule(t, "draining.tinygo"), builtModule(t, "binpack.tinygo")
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.UpdateNode(nodes[0], func(n *v1.Node) { n.Annotations["caldera.sh/draining"] = "true" })
	volume := reloadtest.NewConfigMapVolume(t, t.TempDir())
	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": draining})
	// As deploy/caldera.yaml sets them from the downward API; the scheduler
	// inherits the test's environment.
	const podName = "caldera-hotreload"
	t.Setenv("POD_NAME", podName)
	t.Setenv("POD_NAMESPACE", tc.Namespace)
	s := tc.StartScheduler("--scheduler-conf="+filepath.Join(volume.Dir(), "volcano-scheduler.conf"), "--wasm-cache-dir="+t.TempDir())
	pid := s.Pid()

	tc.CreatePods(harness.Pods{Prefix: "hot", Count: 6, CPU: "1"})
	waitPods(t, tc, "hot", 4, harness.Bound, "bound")
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		n := tc.CountPods("hot", harness.Bound)
		return n == 4, fmt.Sprintf("%d of 6 pods bound under draining, want 4 (node %s is draining, %s full)", n, nodes[0], nodes[1])
	})

	module := filepath.Join(volume.Dir(), "policy.wasm")
	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": []byte("not a module")})
	harness.Eventually(t, timeout, func() (bool, string) {
		n := s.LogLines(`"Reload refused; the previous version keeps serving" err="` + module)
		return n == 1, fmt.Sprintf("%d log lines refusing %s, want 1", n, module)
	})
	waitReloadEvent(t, tc, podName, "PolicyReloadFailed", module+": plugin policy: not a valid Wasm module")
	waitMetric(t, s, `caldera_plugin_reloads_total{plugin="policy",result="failed"} 1`)
	waitMetric(t, s, `caldera_plugin_module_info{plugin="policy",sha256="`+sha(draining)+`"} 1`)
	if n := tc.CountPods("hot", harness.Bound); n != 4 {
		t.Fatalf("%d pods bound after the broken module was refused, want still 4", n)
	}

	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": binpack})
	waitPods(t, tc, "hot", 6, harness.Bound, "bound")
	onDrained := 0
	for _, p := range tc.ListPods("hot") {
		if p.Spec.NodeName == nodes[0] {
			onDrained++
		}
	}
	if onDrained != 2 {
		t.Errorf("%d pods on %s after binpack took over, want the 2 that draining kept pending", onDrained, nodes[0])
	}
	if s.Exited() || s.Pid() != pid {
		t.Fatal("the scheduler restarted; the swap must happen in the running process")
	}
	waitReloadEvent(t, tc, podName, "PolicyReloaded", "plugin policy sha256 "+sha(draining)[:12]+" -> "+sha(binpack)[:12])
	waitMetric(t, s, `caldera_plugin_module_info{plugin="policy",sha256="`+sha(binpack)+`"} 1`)
	if n := s.LogLines(`"Reloaded Wasm plugin" plugin="policy"`); n != 1 {
		t.Errorf("%d log lines reloading plugin policy, want 1", n)
	}
}

// builtModule reads build/plugins/<name>.wasm, skipping the test when it
// is not built unless CALDERA_REQUIRE_PLUGINS is set.
func builtModule(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "build", "plugins", name+".wasm"))
	if err != nil {
		if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
			t.Fatalf("%s.wasm is missing (make plugins): %v", name, err)
		}
		t.Skipf("%s.wasm is not built; run make plugins", name)
	}
	return b
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// waitReloadEvent waits for an Event with reason on the named Pod of the test's
// namespace whose message contains want.
func waitReloadEvent(t *testing.T, tc *harness.Test, pod, reason, want string) {
	t.Helper()
	selector := fields.Set{"involvedObject.kind": "Pod", "involvedObject.name": pod, "reason": reason}.AsSelector().String()
	harness.Eventually(t, timeout, func() (bool, string) {
		list, err := tc.Kube.CoreV1().Events(tc.Namespace).List(tc.Ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if strings.Contains(e.Message, want) {
				if reason == "PolicyReloadFailed" && e.Type != v1.EventTypeWarning {
					return false, fmt.Sprintf("event %s is of type %s, want Warning", reason, e.Type)
				}
				return true, ""
			}
			seen = append(seen, e.Message)
		}
		return false, fmt.Sprintf("no %s Event on pod %s containing %q; seen %q", reason, pod, want, seen)
	})
}

// waitMetric waits until the scheduler's /metrics has the line.
func waitMetric(t *testing.T, s *harness.Scheduler, line string) {
	t.Helper()
	harness.Eventually(t, timeout, func() (bool, string) {
		code, body, err := s.HTTPGet(s.MetricsURL + "/metrics")
		if err != nil || code != 200 {
			return false, fmt.Sprintf("GET /metrics: %d %v", code, err)
		}
		return strings.Contains(body, line+"\n"), "no metric line " + line
	})
}

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestWasmPolicyChangesPlacement: the draining policy, a TinyGo module
// loaded from --plugin-dir by `caldera run`, keeps every new pod off the
// node annotated caldera.sh/draining=true, although that node is as empty
// as the other.
func TestWasmPolicyChangesPlacement(t *testing.T) {
	plugins := requirePlugins(t, "draining.tinygo")
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.UpdateNode(nodes[0], func(n *v1.Node) { n.Annotations["caldera.sh/draining"] = "true" })
	tc.CreatePods(harness.Pods{Prefix: "wasm", Count: 4, CPU: "500m", Memory: "256Mi"})
	tc.StartScheduler(schedulerConf(t, "wasm-draining.yaml"), "--plugin-dir="+plugins)

	waitPods(t, tc, "wasm", 4, harness.Bound, "bound")
	pods, err := tc.Kube.CoreV1().Pods(tc.Namespace).List(tc.Ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == nodes[0] {
			t.Errorf("pod %s was bound to the draining node %s", p.Name, nodes[0])
		}
	}
}

// requirePlugins returns the absolute path of build/plugins after checking
// that it holds the named modules; without them the test is skipped, or
// fails when CALDERA_REQUIRE_PLUGINS is set.
func requirePlugins(t *testing.T, names ...string) string {
	t.Helper()
	plugins, err := filepath.Abs("../build/plugins")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(plugins, name+".wasm")); err != nil {
			if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
				t.Fatalf("%s.wasm is missing (make plugins): %v", name, err)
			}
			t.Skipf("%s.wasm is not built; run make plugins", name)
		}
	}
	return plugins
}

package e2e

import (
	"fmt"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
)

// TestEventHandlerAndCustomInformer: `caldera run` with the example event
// handler (TinyGo) and the external-reservations informer. Of three 4-CPU
// nodes, the first is annotated as lending all 4 CPUs outside Kubernetes
// and the file reserves all of the second's, so five 1-CPU pods find room
// for four, all on the third. Then the file frees the second node and the
// fifth pod is bound there, without a restart.
func TestEventHandlerAndCustomInformer(t *testing.T) {
	builtModule(t, "external-reserved.tinygo") // skips or fails when not built
	plugins, err := filepath.Abs("../build/plugins")
	if err != nil {
		t.Fatal(err)
	}
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(3, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.UpdateNode(nodes[0], func(n *v1.Node) { n.Annotations["caldera.sh/external-reserved"] = "cpu=4" })
	dir := t.TempDir()
	reservations := filepath.Join(dir, "reservations.jsonl")
	reloadtest.RenameInto(t, reservations, fmt.Appendf(nil, `{"node": %q, "cpu": "4"}`+"\n", nodes[1]))
	config := filepath.Join(dir, "handler.yaml")
	reloadtest.RenameInto(t, config, []byte("informers:\n- name: external-reservations\n  config: {path: "+reservations+", debounce: 50ms}\n"))

	tc.CreatePods(harness.Pods{Prefix: "ext", Count: 5, CPU: "1", Memory: "256Mi"})
	tc.StartScheduler(schedulerConf(t, "allocate.yaml"), "--plugin-dir="+plugins,
		"--event-handler=external-reserved.tinygo", "--event-handler-config="+config)

	waitPods(t, tc, "ext", 4, harness.Bound, "bound")
	onNode := func() map[string]int {
		out := map[string]int{}
		for _, p := range tc.ListPods("") {
			if harness.Bound(&p) {
				out[p.Spec.NodeName]++
			}
		}
		return out
	}
	if got := onNode(); got[nodes[2]] != 4 {
		t.Fatalf("pods per node %v, want all 4 on %s (the others are lent out)", got, nodes[2])
	}

	reloadtest.RenameInto(t, reservations, []byte("# the VMs on the second node are gone\n"))
	waitPods(t, tc, "ext", 5, harness.Bound, "bound")
	if got := onNode(); got[nodes[1]] != 1 || got[nodes[0]] != 0 {
		t.Errorf("pods per node %v, want the fifth on %s and none on %s", got, nodes[1], nodes[0])
	}
}

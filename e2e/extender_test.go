package e2e

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
	"github.com/caldera-scheduler/caldera/examples/extender/handler"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
)

// TestExtenderChangesPlacement: `caldera run` with the extender plugin
// calling the example extender over HTTP on loopback. Of three equal nodes
// the extender rejects the two labelled caldera.example/avoid=true, so all
// four pods (which nodeorder alone would spread) go to the third, and the extender saw the calls.
func TestExtenderChangesPlacement(t *testing.T) {
	var calls atomic.Int64
	ext := handler.New(handler.Options{AvoidKey: "caldera.example/avoid", AvoidValue: "true"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		ext.ServeHTTP(w, r)
	}))
	defer srv.Close()

	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(3, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	avoided, chosen := nodes[:2], nodes[2]
	for _, name := range avoided {
		tc.UpdateNode(name, func(n *v1.Node) { n.Labels["caldera.example/avoid"] = "true" })
	}
	conf := filepath.Join(t.TempDir(), "extender.yaml")
	reloadtest.RenameInto(t, conf, []byte(`actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: extender
    arguments:
      extender.urlPrefix: `+srv.URL+`
      extender.httpTimeout: 2s
      extender.batchPredicateVerb: batchPredicate
      extender.prioritizeVerb: prioritize
`))
	tc.CreatePods(harness.Pods{Prefix: "ext", Count: 4, CPU: "1", Memory: "256Mi"})
	tc.StartScheduler("--scheduler-conf=" + conf)

	waitPods(t, tc, "ext", 4, harness.Bound, "bound")
	for _, p := range tc.ListPods("") {
		if p.Spec.NodeName != chosen {
			t.Errorf("pod %s was bound to %s, want %s (the extender rejects %v)", p.Name, p.Spec.NodeName, chosen, avoided)
		}
	}
	if calls.Load() == 0 {
		t.Error("the extender was never called")
	}
}

package extender_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/examples/extender/handler"
	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

// Three 4-cpu nodes: n1 carries the label the example extender avoids, n2
// runs a 2-cpu pod, n3 is empty. p1 (1 cpu) may go anywhere; p2 may only go
// to n1 (node selector).
const simCluster = `
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1}
status: {state: Open}
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kubernetes.io/hostname: n1, caldera.example/avoid: "true"}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {kubernetes.io/hostname: n2}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: n3
  labels: {kubernetes.io/hostname: n3}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: c1, uid: c1-running}
spec:
  schedulerName: volcano
  nodeName: n2
  containers: [{name: main, image: pause, resources: {requests: {cpu: "2", memory: 2Gi}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: c1, uid: c1-p1, creationTimestamp: "2024-01-01T00:00:01Z"}
spec:
  schedulerName: volcano
  containers: [{name: main, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: c1, uid: c1-p2, creationTimestamp: "2024-01-01T00:00:02Z"}
spec:
  schedulerName: volcano
  nodeSelector: {kubernetes.io/hostname: n1}
  containers: [{name: main, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`

// simConf is Volcano's default configuration without nodeorder, so that
// the only scores are the extender's; %s holds the extender's entry.
const simConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins:
  - {name: overcommit}
  - {name: drf}
  - {name: predicates}
  - {name: proportion}
%s`

func simulate(t *testing.T, extenderEntry string) *simulator.Result {
	t.Helper()
	plugins, acts := hostplugins.Registry(), actions.Registry()
	cfg, err := conf.Parse([]byte(fmt.Sprintf(simConf, extenderEntry)), t.Name(), framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := simulator.ParseCluster([]byte(simCluster), "cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(context.Background(), simulator.Options{Cluster: cluster, Config: cfg, Plugins: plugins, Actions: acts, Cycles: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The example extender, called through the real informers, cache, session
// and actions, changes where pods go: it keeps pods off the labelled node
// and packs them onto the busier one.
func TestSimulatedPlacementFollowsTheExtender(t *testing.T) {
	without := simulate(t, "")
	if without.Binds["c1/p1"] != "n1" || without.Binds["c1/p2"] != "n1" {
		t.Fatalf("without the extender: binds %v, want p1 and p2 on n1 (first node, no scores)", without.Binds)
	}

	for _, verb := range []string{"predicateVerb: predicate", "batchPredicateVerb: batchPredicate"} {
		t.Run(verb, func(t *testing.T) {
			srv := httptest.NewServer(handler.New(handler.Options{AvoidKey: "caldera.example/avoid", AvoidValue: "true"}))
			defer srv.Close()
			with := simulate(t, fmt.Sprintf(`  - name: extender
    arguments:
      extender.urlPrefix: %s
      extender.httpTimeout: 10s
      extender.%s
      extender.prioritizeVerb: prioritize
`, srv.URL, verb))
			if got := with.Binds["c1/p1"]; got != "n2" {
				t.Errorf("with the extender: p1 on %q, want n2 (n1 is avoided, n2 is fuller than n3)", got)
			}
			if got, ok := with.Binds["c1/p2"]; ok {
				t.Errorf("with the extender: p2 bound to %s, want it pending: its only node is avoided", got)
			}
			if reason := with.Unschedulable["c1/p2"]; !strings.Contains(reason, "node has label caldera.example/avoid=true") {
				t.Errorf("p2's reason %q does not carry the extender's", reason)
			}
		})
	}
}

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// zoneLabel is the well-known topology label the test's nodes carry.
const zoneLabel = "topology.kubernetes.io/zone"

// TestPlacementRules: with Volcano's default configuration, pods' own
// placement rules hold as kube-scheduler would hold them. Seven replicas with
// required hostname anti-affinity among themselves take six nodes, one each,
// and the seventh stays pending with kube-scheduler's reason; a gang of six
// spread over three zones with maxSkew 1 lands two per zone, where binpack
// alone would have stacked it. The same holds with the TinyGo ports of
// predicates and nodeorder loaded in their place.
func TestPlacementRules(t *testing.T) {
	t.Run("native", func(t *testing.T) { testPlacementRules(t) })
	t.Run("tinygo-ports", func(t *testing.T) {
		plugins := requirePlugins(t, "predicates.tinygo", "nodeorder.tinygo")
		testPlacementRules(t, schedulerConf(t, "wasm-placement.yaml"), "--plugin-dir="+plugins)
	})
}

func testPlacementRules(t *testing.T, schedulerArgs ...string) {
	tc := harness.NewTest(t)
	// Two nodes in each of three zones.
	zone := func(i int) string { return fmt.Sprintf("zone-%d", i/2) }
	nodes := tc.CreateNodes(6, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110,
		LabelsOf: func(i int) map[string]string { return map[string]string{zoneLabel: zone(i)} }})
	zoneOf := map[string]string{}
	for i, name := range nodes {
		zoneOf[name] = zone(i)
	}

	tc.CreatePods(harness.Pods{Prefix: "db", Count: 7, CPU: "500m", Memory: "256Mi", Affinity: &v1.Affinity{
		PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{harness.SetLabel: "db"}},
			TopologyKey:   "kubernetes.io/hostname",
		}}},
	}})
	tc.RecordBindings()
	tc.StartScheduler(schedulerArgs...)

	// Zones 1 and 2 are busy first: a 2.5-cpu filler on each of their four
	// nodes leaves room for one more 1-cpu pod per node, so that scoring
	// alone would put most of the gang into the idle zone 0.
	tc.CreatePods(harness.Pods{Prefix: "filler", Count: 4, CPU: "2500m", Memory: "1Gi", Affinity: &v1.Affinity{
		NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
				Key: zoneLabel, Operator: v1.NodeSelectorOpIn, Values: []string{"zone-1", "zone-2"},
			}}}},
		}},
	}})
	waitPods(t, tc, "filler", 4, harness.Running, "bound and Running")
	tc.CreatePodGroup("spread", v1beta1.PodGroupSpec{MinMember: 6, Queue: "default"})
	tc.CreatePods(harness.Pods{Prefix: "spread", Count: 6, CPU: "1", Memory: "1Gi", PodGroup: "spread", Spread: []v1.TopologySpreadConstraint{{
		MaxSkew:           1,
		TopologyKey:       zoneLabel,
		WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{harness.SetLabel: "spread"}},
	}}})

	waitPods(t, tc, "spread", 6, harness.Running, "bound and Running")
	waitPodGroupPhase(t, tc, "spread", v1beta1.PodGroupRunning)
	perZone := map[string]int{}
	for _, p := range tc.ListPods("spread") {
		perZone[zoneOf[p.Spec.NodeName]]++
	}
	for z := range 3 {
		if n := perZone[fmt.Sprintf("zone-%d", z)]; n != 2 {
			t.Errorf("spread pods per zone %v, want 2 in each of zone-0, zone-1, zone-2", perZone)
			break
		}
	}

	waitPods(t, tc, "db", 6, harness.Bound, "bound")
	waitEventMessage(t, tc, "Pod", "", "FailedScheduling", "6 node(s) didn't match pod anti-affinity rules")
	pods := tc.ListPods("db")
	seen := map[string]string{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		if other, ok := seen[p.Spec.NodeName]; ok {
			t.Errorf("db pods %s and %s share node %s despite required anti-affinity", other, p.Name, p.Spec.NodeName)
		}
		seen[p.Spec.NodeName] = p.Name
	}
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		n := tc.CountPods("db", harness.Bound)
		return n == 6, fmt.Sprintf("%d db pods bound, want 6: the seventh has no node without a db pod", n)
	})
}

// waitEventMessage waits for a Warning Event with the given reason about an
// object of kind (named name, or any when name is empty) whose message
// contains text.
func waitEventMessage(t *testing.T, tc *harness.Test, kind, name, reason, text string) {
	t.Helper()
	set := fields.Set{"involvedObject.kind": kind, "reason": reason, "type": v1.EventTypeWarning}
	if name != "" {
		set["involvedObject.name"] = name
	}
	var seen []string
	harness.Eventually(t, timeout, func() (bool, string) {
		list, err := tc.Kube.CoreV1().Events(tc.Namespace).List(tc.Ctx, metav1.ListOptions{FieldSelector: set.String()})
		if err != nil {
			return false, err.Error()
		}
		seen = seen[:0]
		for _, e := range list.Items {
			if strings.Contains(e.Message, text) {
				return true, ""
			}
			seen = append(seen, e.Message)
		}
		return false, fmt.Sprintf("no Warning Event %s for %s %q saying %q; messages: %q", reason, kind, name, text, seen)
	})
}

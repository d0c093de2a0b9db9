package cache

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

func labeled(n *v1.Node, labels map[string]string) *v1.Node {
	n.Labels = labels
	return n
}

// --node-selector: a node is taken when any one of its labels is a listed
// pair; one relabeled into the selection is taken, one relabeled out of it
// leaves.
func TestNodeSelectorTakesOnlyLabeledNodes(t *testing.T) {
	selector, err := ParseNodeSelector([]string{"volcano.sh/role:train", "zone:a"})
	if err != nil {
		t.Fatal(err)
	}
	c := startCache(t, Options{NodeSelector: selector}, []runtime.Object{
		labeled(testNode("train", "4"), map[string]string{"volcano.sh/role": "train"}),
		labeled(testNode("zone-a", "4"), map[string]string{"zone": "a", "volcano.sh/role": "serving"}),
		labeled(testNode("serving", "4"), map[string]string{"volcano.sh/role": "serving"}),
		testNode("bare", "4"),
	})
	names := func() map[string]bool {
		out := map[string]bool{}
		for name := range c.Snapshot().Nodes {
			out[name] = true
		}
		return out
	}
	eventually(t, "the two selected nodes are in the snapshot", func() bool {
		got := names()
		return len(got) == 2 && got["train"] && got["zone-a"]
	})

	nodes := c.opts.Client.CoreV1().Nodes()
	ctx := context.Background()
	in := labeled(testNode("serving", "4"), map[string]string{"volcano.sh/role": "train"})
	if _, err := nodes.Update(ctx, in, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	out := labeled(testNode("zone-a", "4"), map[string]string{"zone": "b"})
	if _, err := nodes.Update(ctx, out, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "serving relabeled in and zone-a out", func() bool {
		got := names()
		return len(got) == 2 && got["train"] && got["serving"]
	})
}

func TestParseNodeSelector(t *testing.T) {
	s, err := ParseNodeSelector([]string{" a : b ", "", "c:d:e"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s["a:b"]; !ok || len(s) != 2 {
		t.Errorf("selector %v, want a:b and c:d:e (the value runs to the end, as Volcano cuts at the first colon)", s)
	}
	if _, ok := s["c:d:e"]; !ok {
		t.Errorf("selector %v lacks c:d:e", s)
	}
	for _, bad := range []string{"role", "role:", ":train"} {
		if _, err := ParseNodeSelector([]string{bad}); err == nil {
			t.Errorf("%q accepted; want an error", bad)
		}
	}
}

// --priority-class=false: PriorityClasses are not read, so a job's
// priority is 0 whatever class its PodGroup names, the global default
// included.
func TestIgnoredPriorityClassesGiveEveryJobZero(t *testing.T) {
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	def := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Value: 50, GlobalDefault: true}
	pod := testPod("p", DefaultSchedulerName, "", "1")
	pod.Annotations = map[string]string{v1beta1.KubeGroupNameAnnotationKey: "pg"}
	pg := func() *v1beta1.PodGroup {
		return &v1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"},
			Spec:       v1beta1.PodGroupSpec{MinMember: 1, Queue: DefaultQueue, PriorityClassName: "high"},
		}
	}
	for _, tc := range []struct {
		ignore bool
		want   int32
	}{{false, 1000}, {true, 0}} {
		c := startCache(t, Options{IgnorePriorityClasses: tc.ignore}, []runtime.Object{testNode("n1", "4"), high, def, pod.DeepCopy()}, pg())
		var got int32 = -1
		eventually(t, "the job is in the snapshot", func() bool {
			for _, j := range c.Snapshot().Jobs {
				got = j.Priority
				return true
			}
			return false
		})
		if got != tc.want {
			t.Errorf("priority classes ignored %v: job priority %d, want %d", tc.ignore, got, tc.want)
		}
	}
}

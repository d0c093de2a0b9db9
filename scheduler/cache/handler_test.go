package cache

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	vcfake "volcano.sh/apis/pkg/client/clientset/versioned/fake"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// hiding is a replacement handler: it keeps pods labelled hide=true out of
// the cache and records node n1 with one CPU.
func hiding(hc HandlerContext) (EventHandler, error) {
	return EventHandlerFunc(func(ev Event) {
		switch ev.Kind {
		case KindPod:
			if p, ok := ev.New.(*v1.Pod); ok && p.Labels["hide"] == "true" {
				DropEvent(hc.Default, ev)
				return
			}
		case KindNode:
			if n, ok := ev.New.(*v1.Node); ok && n.Name == "n1" {
				n = n.DeepCopy()
				n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("1")
				ev.New = n
			}
		}
		hc.Default.Handle(ev)
	}), nil
}

func TestReplacementHandler(t *testing.T) {
	reg := NewRegistry()
	reg.RegisterHandler("hiding", hiding)
	hidden := testPod("hidden", "volcano", "", "1")
	hidden.Labels = map[string]string{"hide": "true"}
	kube := k8sfake.NewSimpleClientset(testNode("n1", "8"), hidden, testPod("shown", "volcano", "", "1"))
	c := startCache(t, Options{Client: kube, Registry: reg, EventHandler: "hiding"}, nil)

	if got := c.Snapshot().Nodes["n1"].Allocatable.MilliCPU; got != 1000 {
		t.Errorf("n1 allocatable %v milli-CPU, want the handler's 1000", got)
	}
	states := c.TaskStates()
	if _, ok := states[api.TaskID(hidden.UID)]; ok {
		t.Error("the dropped pod is in the cache")
	}
	if _, ok := states["uid-shown"]; !ok {
		t.Error("the passed pod is not in the cache")
	}
	if d := c.DroppedPods(); !d[api.TaskID(hidden.UID)] || len(d) != 1 {
		t.Errorf("DroppedPods() = %v, want only the hidden pod", d)
	}

	// Unhidden, it enters; hidden again, it leaves.
	setLabel := func(value string) {
		p, err := kube.CoreV1().Pods("ns").Get(context.Background(), "hidden", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Labels["hide"] = value
		p.ResourceVersion = value // the fake clientset keeps versions as given
		if _, err := kube.CoreV1().Pods("ns").Update(context.Background(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	inCache := func() bool { _, ok := c.TaskStates()[api.TaskID(hidden.UID)]; return ok }
	setLabel("false")
	eventually(t, "the unhidden pod is recorded", inCache)
	setLabel("true")
	eventually(t, "the hidden pod leaves the cache", func() bool { return !inCache() && c.DroppedPods()[api.TaskID(hidden.UID)] })
}

func TestUnknownHandler(t *testing.T) {
	_, err := New(Options{Client: k8sfake.NewSimpleClientset(), VCClient: vcfake.NewSimpleClientset(), EventHandler: "nosuch"})
	if err == nil || err.Error() != `--event-handler "nosuch": no such event handler (registered: default)` {
		t.Errorf("New: %v", err)
	}
}

// A reservation takes its resources off the node's allocatable, also when
// it arrives before the node, and gives them back when it goes.
func TestExternalReservationsInCache(t *testing.T) {
	c := startCache(t, Options{}, []runtime.Object{testNode("n1", "8")})
	reserve := func(typ EventType, node, cpu string) {
		r := &api.ExternalReservation{ObjectMeta: metav1.ObjectMeta{Namespace: "src", Name: node}, Node: node,
			Resources: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}
		ev := Event{Type: typ, Kind: KindExternalReservation, New: r}
		if typ == Deleted {
			ev = Event{Type: typ, Kind: KindExternalReservation, Old: r}
		}
		c.dispatch(ev)
	}
	alloc := func(node string) float64 {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.nodes[node].Allocatable.MilliCPU
	}
	reserve(Added, "n1", "6")
	if a := alloc("n1"); a != 2000 {
		t.Errorf("n1 with 6 CPUs reserved: %v milli-CPU, want 2000", a)
	}
	reserve(Updated, "n1", "10")
	if a := alloc("n1"); a != 0 {
		t.Errorf("n1 with more reserved than it has: %v, want 0", a)
	}
	reserve(Deleted, "n1", "10")
	if a := alloc("n1"); a != 8000 {
		t.Errorf("n1 after the reservation went: %v, want 8000", a)
	}
	reserve(Added, "n2", "1")
	if _, err := c.opts.Client.CoreV1().Nodes().Create(context.Background(), testNode("n2", "4"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "n2 arrives with its reservation", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		n, ok := c.nodes["n2"]
		return ok && n.Node != nil && n.Allocatable.MilliCPU == 3000
	})
}

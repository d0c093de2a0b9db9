package runtime

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// A node's cards in the view count the pods holding them, by their
// volcano.sh/gpu-index, and a placement of this session by the annotation
// it will carry at bind: a session opened again on a fresh instance after
// a failure must not see the cards its placements took as idle. The
// unhealthy card is listed, flagged; the task's annotations carry what the
// bind will write.
func TestViewGPUsCountThisSessionsPlacements(t *testing.T) {
	gpus := v1.ResourceList{"volcano.sh/gpu-memory": resource.MustParse("12000"), "volcano.sh/gpu-number": resource.MustParse("3")}
	node := api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: map[string]string{"volcano.sh/gpu-unhealthy-ids": "2"}},
		Status: v1.NodeStatus{Capacity: gpus, Allocatable: gpus}})
	pod := func(name, index string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
			Spec: v1.PodSpec{NodeName: "n1", Containers: []v1.Container{{Resources: v1.ResourceRequirements{
				Limits: v1.ResourceList{"volcano.sh/gpu-memory": resource.MustParse("3000")}}}}},
			Status: v1.PodStatus{Phase: v1.PodRunning}}
		if index != "" {
			p.Annotations = map[string]string{"volcano.sh/gpu-index": index}
		}
		return p
	}
	running := api.NewTaskInfo(pod("running", "0"))
	placed := api.NewTaskInfo(pod("placed", ""))
	card := "1"
	placed.SetBindAnnotations(map[string]*string{"volcano.sh/gpu-index": &card})
	node.AddTask(running)
	node.AddTask(placed)

	want := []abi.GPU{{ID: 0, Memory: 4000, Used: 3000, Holders: 1}, {ID: 1, Memory: 4000, Used: 3000, Holders: 1}, {ID: 2, Memory: 4000, Unhealthy: true}}
	got := wireGPUs(node)
	if len(got) != len(want) {
		t.Fatalf("cards %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("card %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if wt := wireTask(placed, 0, 0, nil); wt.Annotations["volcano.sh/gpu-index"] != "1" || wt.GPUMemory != 3000 {
		t.Errorf("placed task: annotations %v, GPU memory %d; want its bind's card 1 and 3000", wt.Annotations, wt.GPUMemory)
	}
	if placed.Pod.Annotations != nil {
		t.Errorf("the pod's own annotations were changed: %v", placed.Pod.Annotations)
	}
}

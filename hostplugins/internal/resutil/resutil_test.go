package resutil

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

func res(cpu, mem float64, scalars ...any) *api.Resource {
	r := &api.Resource{MilliCPU: cpu, Memory: mem}
	for i := 0; i < len(scalars); i += 2 {
		r.SetScalar(v1.ResourceName(scalars[i].(string)), scalars[i+1].(float64))
	}
	return r
}

func TestFitsRequested(t *testing.T) {
	tests := []struct {
		name      string
		l, r, req *api.Resource
		fits      bool
		short     int
	}{
		{"a scalar the other side lacks is short", res(1000, 1, "nvidia.com/gpu", 1000.0), res(2000, 1), res(1000, 0, "nvidia.com/gpu", 1000.0), false, 1},
		{"only asked dimensions count", res(3000, 5), res(4000, 1), res(1000, 0), true, 0},
		{"equal fits, no tolerance needed", res(4000, 1), res(4000, 1), res(1000, 1), true, 0},
		{"pods never count", res(1000, 0, "pods", 9.0), res(2000, 0, "pods", 1.0), res(1000, 0, "pods", 1.0), true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fits, short := FitsRequested(tc.l, tc.r, tc.req)
			if fits != tc.fits || len(short) != tc.short {
				t.Errorf("FitsRequested = %v %v, want %v with %d short", fits, short, tc.fits, tc.short)
			}
		})
	}
}

func TestDominantShareSkipsEmptyScalars(t *testing.T) {
	_, share := DominantShare(res(1000, 0, "nvidia.com/gpu", 1000.0), res(4000, 0, "nvidia.com/gpu", 0.0))
	if share != 0.25 {
		t.Errorf("share = %v, want 0.25: a dimension the total lacks is not measured", share)
	}
}

func TestDiff(t *testing.T) {
	grown, shrunk := Diff(res(3, 1, "a", 2.0), res(1, 4, "b", 5.0))
	if grown.MilliCPU != 2 || shrunk.Memory != 3 || grown.Scalars["a"] != 2 || shrunk.Scalars["b"] != 5 {
		t.Errorf("Diff = %v / %v", grown, shrunk)
	}
}

func TestUnmetMinResourcesAndGates(t *testing.T) {
	minRes := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		"nvidia.com/gpu":  resource.MustParse("2"),
		"count/something": resource.MustParse("1"),
	}
	job := api.NewJobInfo("ns/j")
	job.SetPodGroup(&v1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"},
		Spec:       v1beta1.PodGroupSpec{MinMember: 1, MinResources: &minRes},
	})
	unmet := UnmetMinResources(job, res(1000, 0))
	if unmet.MilliCPU != 3000 || unmet.Scalars["nvidia.com/gpu"] != 2000 || len(unmet.Scalars) != 1 {
		t.Errorf("unmet = %v, want cpu 3000 and the whole gpu minimum", unmet)
	}

	gatedPod := func(name string, gates ...string) *v1.Pod {
		p := testutil.Pod("ns", name, "j", "", testutil.Res("cpu", "1"))
		for _, g := range gates {
			p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: g})
		}
		return p
	}
	job.AddTaskInfo(api.NewTaskInfo(gatedPod("user-gated", "example.com/wait")))
	job.AddTaskInfo(api.NewTaskInfo(gatedPod("queue-gated", queueAllocationGate)))
	if got := WithoutGated(job, res(4000, 0)); got.MilliCPU != 3000 {
		t.Errorf("cpu after gates = %v, want 3000: only the user-gated pod is deducted", got.MilliCPU)
	}
}

package claims

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// A pod whose only volumes are made on the node (the service-account
// token, config, scratch space) has nothing for the checks; a claim, an
// inline CSI volume or a ResourceClaim does.
func TestHasChecks(t *testing.T) {
	c, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.OnSessionOpen(&framework.Session{})
	pod := func(vols []v1.VolumeSource, claims ...string) *api.TaskInfo {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
		for i, s := range vols {
			p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: string(rune('a' + i)), VolumeSource: s})
		}
		for _, name := range claims {
			p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: "g", ResourceClaimName: &name})
		}
		return &api.TaskInfo{Pod: p}
	}
	local := []v1.VolumeSource{{Projected: &v1.ProjectedVolumeSource{}}, {ConfigMap: &v1.ConfigMapVolumeSource{}}, {EmptyDir: &v1.EmptyDirVolumeSource{}}}
	for _, tc := range []struct {
		name string
		task *api.TaskInfo
		want bool
	}{
		{"no volumes", pod(nil), false},
		{"made on the node", pod(local), false},
		{"a claim", pod(append(local, v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}})), true},
		{"inline CSI", pod([]v1.VolumeSource{{CSI: &v1.CSIVolumeSource{Driver: "ebs"}}}), true},
		{"a resource claim", pod(nil, "gpu"), true},
	} {
		if got := c.HasChecks(tc.task); got != tc.want {
			t.Errorf("%s: HasChecks %v, want %v", tc.name, got, tc.want)
		}
	}
	off, err := New(framework.Arguments{VolumeBindingEnableKey: false, VolumeZoneEnableKey: false, NodeVolumeLimitsEnableKey: false, DynamicResourceAllocationEnableKey: false})
	if err != nil {
		t.Fatal(err)
	}
	off.OnSessionOpen(&framework.Session{})
	if off.HasChecks(pod([]v1.VolumeSource{{CSI: &v1.CSIVolumeSource{Driver: "ebs"}}}, "gpu")) {
		t.Error("with every check off, a pod with claims has checks")
	}
}

// Apply gathers reasons as the native plugin does: NodeVolumeLimits'
// Unschedulable reasons add up and the check goes on; any other failure
// ends it with its code.
func TestApply(t *testing.T) {
	failed := []ClaimCheck{
		{StageLimits, framework.Unschedulable, []string{"node(s) exceed max volume count"}},
		{StageBinding, framework.UnschedulableAndUnresolvable, []string{"node(s) had volume node affinity conflict"}},
	}
	reasons, code, ended := Apply(failed, StageClaims, StageClaims, []string{"node(s) pod number exceeded"})
	if ended || !reflect.DeepEqual(reasons, []string{"node(s) pod number exceeded"}) {
		t.Errorf("stage 0: %v %v %v", reasons, code, ended)
	}
	reasons, code, ended = Apply(failed, StageLimits, StageZone, reasons)
	if ended || code != framework.Unschedulable || len(reasons) != 2 {
		t.Errorf("stages 1-2: %v %v %v", reasons, code, ended)
	}
	reasons, code, ended = Apply(failed, StageBinding, StageDevices, reasons)
	if !ended || code != framework.UnschedulableAndUnresolvable || reasons[2] != "node(s) had volume node affinity conflict" {
		t.Errorf("stages 3-4: %v %v %v", reasons, code, ended)
	}
}

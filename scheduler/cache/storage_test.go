package cache

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// A volume a bind in flight gives to a claim is seen bound to it by the
// next snapshot, before the API server says so; when the bind fails, the
// snapshot shows the volume free again.
func TestBindInFlightHoldsItsVolume(t *testing.T) {
	binder := &failingBinder{gate: make(chan struct{})}
	binder.failures.Store(1)
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv1"},
		Spec:       v1.PersistentVolumeSpec{Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		Status:     v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data", UID: "claim-uid"}}
	c := startCache(t, Options{Binder: binder}, []runtime.Object{testNode("n1", "4"), testPod("p", DefaultSchedulerName, "", "1"), pv, claim})
	task := onlyTask(t, c)
	chosen, _, err := storagehelpers.GetBindVolumeToClaim(c.Snapshot().Storage.Volumes["pv1"], claim)
	if err != nil {
		t.Fatal(err)
	}
	task.BindVolumes = &api.VolumeBinding{Static: []api.StaticBinding{{Volume: chosen, Claim: claim}}}
	if err := c.Bind(task, "n1"); err != nil {
		t.Fatal(err)
	}
	if ref := c.Snapshot().Storage.Volumes["pv1"].Spec.ClaimRef; ref == nil || ref.Name != "data" {
		t.Fatalf("while the bind is in flight pv1's claimRef is %+v, want claim data", ref)
	}
	close(binder.gate)
	c.Flush()
	if ref := c.Snapshot().Storage.Volumes["pv1"].Spec.ClaimRef; ref != nil {
		t.Fatalf("after the failed bind pv1's claimRef is %+v, want none", ref)
	}
}

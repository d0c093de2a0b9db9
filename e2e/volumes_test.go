package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// bindCompleted is the annotation the PV controller puts on a claim it has
// finished binding.
const bindCompleted = "pv.kubernetes.io/bind-completed"

// TestVolumeBindingFollowsLocalVolume: four nodes, and a local
// PersistentVolume of a WaitForFirstConsumer class that only the third can
// reach, that node also the busiest (a filler takes 3 of its 4 cpus), so
// that Volcano's default scoring (least requested first) ranks it last for
// any pod. A Volcano job's pod whose claim can only take that volume is
// bound there; kube-controller-manager's PV binder, given the volume's
// claimRef by the scheduler, binds the claim (spec.volumeName, phase
// Bound), and the scheduler creates the pod's Binding only after that.
func TestVolumeBindingFollowsLocalVolume(t *testing.T) {
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(4, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	volumeNode := nodes[2]
	tc.StartKubeControllers()
	tc.StartScheduler(schedulerConf(t, "volumes.yaml"))

	tc.CreatePods(harness.Pods{Prefix: "filler", Count: 1, CPU: "3", Memory: "12Gi", Affinity: onNode(volumeNode)})
	waitPods(t, tc, "filler", 1, harness.Running, "bound and Running")

	class := tc.CreateStorageClass("local", harness.NoProvisioner, storagev1.VolumeBindingWaitForFirstConsumer)
	pv := tc.CreateLocalVolume("local-pv", class, "10Gi", volumeNode)
	// Watched from before the claim and the pod exist: the first moment each
	// shows its binding, with the etcd revision of the write that made it.
	volumeBound := firstSighting(t, tc, tc.Kube.CoreV1().PersistentVolumes().Watch,
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", pv).String()},
		func(pv *v1.PersistentVolume) bool { return pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID != "" })
	claimBound := firstSighting(t, tc, tc.Kube.CoreV1().PersistentVolumeClaims(tc.Namespace).Watch, metav1.ListOptions{},
		func(c *v1.PersistentVolumeClaim) bool {
			return c.Spec.VolumeName != "" && metav1.HasAnnotation(c.ObjectMeta, bindCompleted)
		})
	podBound := firstSighting(t, tc, tc.Kube.CoreV1().Pods(tc.Namespace).Watch,
		metav1.ListOptions{LabelSelector: harness.SetLabel + "=app"}, harness.Bound)

	claim := tc.CreateClaim("data", class, "5Gi")
	tc.CreatePodGroup("app", v1beta1.PodGroupSpec{MinMember: 1, Queue: "default"})
	created := time.Now()
	tc.CreatePods(harness.Pods{Prefix: "app", Count: 1, CPU: "1", Memory: "1Gi", PodGroup: "app",
		Volumes: []v1.Volume{harness.ClaimVolume("data", claim.Name)}})

	waitPods(t, tc, "app", 1, harness.Bound, "bound")
	pod := tc.ListPods("app")[0]
	if pod.Spec.NodeName != volumeNode {
		t.Fatalf("%s was bound to %s, want %s: the only node volume %s reaches", pod.Name, pod.Spec.NodeName, volumeNode, pv)
	}

	harness.Eventually(t, timeout, func() (bool, string) {
		c, err := tc.Kube.CoreV1().PersistentVolumeClaims(tc.Namespace).Get(tc.Ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return c.Spec.VolumeName == pv && c.Status.Phase == v1.ClaimBound,
			fmt.Sprintf("claim %s: volumeName %q, phase %q; want %q, %q", c.Name, c.Spec.VolumeName, c.Status.Phase, pv, v1.ClaimBound)
	})
	vol, err := tc.Kube.CoreV1().PersistentVolumes().Get(tc.Ctx, pv, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := vol.Spec.ClaimRef; ref == nil || ref.Namespace != tc.Namespace || ref.Name != claim.Name || ref.UID != claim.UID {
		t.Errorf("volume %s: claimRef %+v, want claim %s/%s (uid %s)", pv, ref, tc.Namespace, claim.Name, claim.UID)
	}
	harness.Eventually(t, timeout, func() (bool, string) {
		vol, err := tc.Kube.CoreV1().PersistentVolumes().Get(tc.Ctx, pv, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return vol.Status.Phase == v1.VolumeBound, fmt.Sprintf("volume %s phase %q, want %q", pv, vol.Status.Phase, v1.VolumeBound)
	})

	// The Binding comes after the claim is bound: one etcd, so revisions
	// order the writes.
	v, c, p := volumeBound.get(t), claimBound.get(t), podBound.get(t)
	if c.rev >= p.rev {
		t.Errorf("the pod was bound at revision %d, the claim only at %d: the scheduler did not wait for the PV controller", p.rev, c.rev)
	}
	t.Logf("from the pod's creation: volume's claimRef seen after %s, claim bound after %s, pod bound after %s (revisions %d, %d, %d)",
		v.at.Sub(created).Round(time.Millisecond), c.at.Sub(created).Round(time.Millisecond),
		p.at.Sub(created).Round(time.Millisecond), v.rev, c.rev, p.rev)
}

// TestVolumeBindingImmediateClaimPending: a pod whose claim is of a class
// that binds Immediate and is not bound (no volume exists for it, and the
// PV binder runs) stays pending with VolumeBinding's reason, and is never
// bound. Every volume check is on, as by default: VolumeBinding's
// pre-predicate speaks before VolumeZone's filter, as in Volcano.
func TestVolumeBindingImmediateClaimPending(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.StartKubeControllers()
	tc.StartScheduler(schedulerConf(t, "volumes.yaml"))

	class := tc.CreateStorageClass("immediate", harness.NoProvisioner, storagev1.VolumeBindingImmediate)
	claim := tc.CreateClaim("data", class, "1Gi")
	tc.CreatePodGroup("app", v1beta1.PodGroupSpec{MinMember: 1, Queue: "default"})
	tc.CreatePods(harness.Pods{Prefix: "app", Count: 1, CPU: "1", Memory: "1Gi", PodGroup: "app",
		Volumes: []v1.Volume{harness.ClaimVolume("data", claim.Name)}})

	const reason = "pod has unbound immediate PersistentVolumeClaims"
	harness.Eventually(t, timeout, func() (bool, string) {
		pod := tc.ListPods("app")[0]
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && strings.Contains(c.Message, reason) {
				t.Logf("%s: PodScheduled False, %s: %s", pod.Name, c.Reason, c.Message)
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s is on %q with conditions %v, want it pending with %q", pod.Name, pod.Spec.NodeName, pod.Status.Conditions, reason)
	})
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		pod := tc.ListPods("app")[0]
		return !harness.Bound(&pod), fmt.Sprintf("%s was bound to %s with its claim unbound", pod.Name, pod.Spec.NodeName)
	})
	c, err := tc.Kube.CoreV1().PersistentVolumeClaims(tc.Namespace).Get(tc.Ctx, claim.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Spec.VolumeName != "" || c.Status.Phase != v1.ClaimPending {
		t.Errorf("claim %s: volumeName %q, phase %q; want none, %q (no volume exists for it)", c.Name, c.Spec.VolumeName, c.Status.Phase, v1.ClaimPending)
	}
}

// onNode is a required node affinity to one node by its hostname label.
func onNode(node string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
			Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node},
		}}}},
	}}}
}

// sighting is when a watch first showed an object in some state, and the
// resourceVersion (an etcd revision) of the write that put it there.
type sighting struct {
	rev int64
	at  time.Time
}

// sightingOf is the first sighting a watch delivers, once it has.
type sightingOf struct {
	done chan struct{}
	s    sighting
	err  error
}

// get returns the sighting, failing the test if the watch ended without one.
func (so *sightingOf) get(t *testing.T) sighting {
	t.Helper()
	select {
	case <-so.done:
	case <-time.After(timeout):
		t.Fatal("no sighting within the timeout")
	}
	if so.err != nil {
		t.Fatal(so.err)
	}
	return so.s
}

// firstSighting starts a watch (a client's Watch method, with opts) and
// reads it until an object of type T satisfies pred, and remembers that
// event; the watch is stopped then or when the test ends.
func firstSighting[T interface {
	*v1.Pod | *v1.PersistentVolume | *v1.PersistentVolumeClaim | *resourcev1beta1.ResourceClaim
	GetResourceVersion() string
}](t *testing.T, tc *harness.Test, watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error),
	opts metav1.ListOptions, pred func(T) bool) *sightingOf {
	t.Helper()
	w, err := watchFn(tc.Ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	so := &sightingOf{done: make(chan struct{})}
	go func() {
		defer close(so.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			obj, ok := ev.Object.(T)
			if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) || !pred(obj) {
				continue
			}
			so.s.at = time.Now()
			so.s.rev, so.err = strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
			return
		}
		so.err = fmt.Errorf("the watch ended before it showed the state looked for")
	}()
	return so
}

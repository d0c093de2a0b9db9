package cache

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/dra"
	"github.com/caldera-scheduler/caldera/scheduler/volumes"
)

// APIBinder binds through the pods/binding subresource.
type APIBinder struct{ Client kubernetes.Interface }

// Bind writes the volume decisions and waits for the PV controller to
// bind the claims (volumes.Writer), allocates and reserves the pod's
// ResourceClaims (dra.Writer), writes the annotations with a merge patch,
// then creates a Binding for the pod; the UID precondition of the last two
// makes a bind of a pod that was deleted and recreated under the same name
// fail instead of placing the new pod. A failure after the claims were
// reserved takes the pod out of their reservedFor again.
func (b APIBinder) Bind(ctx context.Context, req BindRequest) error {
	pod, node := req.Pod, req.Node
	if !req.Volumes.Empty() {
		w := volumes.Writer{Client: b.Client, Timeout: req.Volumes.Timeout}
		if err := w.Write(ctx, pod, node, req.Volumes); err != nil {
			return err
		}
	}
	claims := dra.Writer{Client: b.Client}
	var written *dra.Written
	if req.Claims != nil {
		var err error
		if written, err = claims.Write(ctx, pod, req.Claims); err != nil {
			return err
		}
	}
	if annotations := req.Annotations; len(annotations) > 0 {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": pod.UID, "annotations": annotations}})
		if err != nil {
			return claims.Release(ctx, pod, written, err)
		}
		if _, err := b.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return claims.Release(ctx, pod, written, fmt.Errorf("writing annotations before the bind: %w", err))
		}
	}
	binding := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}
	if err := b.Client.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		return claims.Release(ctx, pod, written, err)
	}
	return nil
}

// APIEvictor marks the pod as Volcano's scheduler does, then deletes it.
type APIEvictor struct{ Client kubernetes.Interface }

// Evict records why with Volcano's two conditions (Ready=False, reason
// Evict, "Pod is evicted, because of <reason>"; DisruptionTarget, reason
// PreemptionByScheduler), then deletes the pod with its UID as
// precondition.
func (e APIEvictor) Evict(ctx context.Context, pod *v1.Pod, reason string) error {
	p := pod.DeepCopy()
	setPodCondition(p, v1.PodCondition{
		Type:    v1.PodReady,
		Status:  v1.ConditionFalse,
		Reason:  "Evict",
		Message: EvictMessage(reason),
	})
	setPodCondition(p, v1.PodCondition{
		Type:    v1.DisruptionTarget,
		Status:  v1.ConditionTrue,
		Reason:  v1.PodReasonPreemptionByScheduler,
		Message: p.Spec.SchedulerName + ": preempting to accommodate a higher priority pod",
	})
	if _, err := e.Client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("marking pod %s/%s for eviction: %w", p.Namespace, p.Name, err)
	}
	uid := pod.UID
	err := e.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// APIStatusUpdater writes PodGroup and pod status through the API.
type APIStatusUpdater struct {
	Client   kubernetes.Interface
	VCClient vcclient.Interface
}

// UpdatePodGroupStatus writes a PodGroup's status. Volcano's PodGroup CRD
// has no status subresource, so the status travels in a plain update, as
// Volcano's scheduler sends it; on a cluster whose CRD does have one, the
// update leaves the status unchanged and the status subresource is written
// as well. A conflict re-reads the PodGroup and retries with our status on
// the fresh object.
func (u APIStatusUpdater) UpdatePodGroupStatus(ctx context.Context, pg *v1beta1.PodGroup) error {
	client := u.VCClient.SchedulingV1beta1().PodGroups(pg.Namespace)
	obj := pg.DeepCopy()
	for attempt := 1; ; attempt++ {
		updated, err := client.Update(ctx, obj, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) && attempt < maxStatusAttempts {
			latest, getErr := client.Get(ctx, pg.Name, metav1.GetOptions{})
			if getErr != nil {
				return getErr
			}
			if latest.UID != pg.UID {
				return apierrors.NewNotFound(v1beta1.Resource("podgroups"), pg.Name)
			}
			latest.Status = *pg.Status.DeepCopy()
			obj = latest
			continue
		}
		if err != nil {
			return err
		}
		if !equality.Semantic.DeepEqual(updated.Status, pg.Status) {
			updated.Status = *pg.Status.DeepCopy()
			_, err = client.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
		}
		return err
	}
}

// maxStatusAttempts bounds the retries of a status write that keeps
// conflicting with other writers.
const maxStatusAttempts = 5

// UpdatePodPending sets the PodScheduled=False condition and the nominated
// node, writing only when they differ from what the pod already says.
func (u APIStatusUpdater) UpdatePodPending(ctx context.Context, pod *v1.Pod, pp PodPending) error {
	if saysPending(pod, pp) {
		return nil
	}
	p := pod.DeepCopy()
	setPodCondition(p, pendingCondition(pp))
	if pp.NominatedNode != "" {
		p.Status.NominatedNodeName = pp.NominatedNode
	}
	_, err := u.Client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}

func setPodCondition(pod *v1.Pod, cond v1.PodCondition) {
	cond.LastTransitionTime = metav1.Now()
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == cond.Type {
			pod.Status.Conditions[i] = cond
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, cond)
}

// EvictMessage is how Volcano words an eviction on the pod.
func EvictMessage(reason string) string { return "Pod is evicted, because of " + reason }

func pendingCondition(pp PodPending) v1.PodCondition {
	return v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: pp.Reason,
		Message: api.TruncateMessage(pp.Message, api.ConditionMessageLimit)}
}

// saysPending reports whether the pod already carries the condition and
// the nomination.
func saysPending(pod *v1.Pod, pp PodPending) bool {
	if pp.NominatedNode != "" && pod.Status.NominatedNodeName != pp.NominatedNode {
		return false
	}
	want := pendingCondition(pp)
	for _, c := range pod.Status.Conditions {
		if c.Type == want.Type && c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
			return true
		}
	}
	return false
}

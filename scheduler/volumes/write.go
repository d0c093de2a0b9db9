package volumes

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	csitrans "k8s.io/csi-translation-lib"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// DefaultBindTimeout is how long a bind waits for the PV controller to
// finish binding the pod's claims, as Volcano's volumebinding.bindTimeoutSeconds
// defaults it.
const DefaultBindTimeout = 600 * time.Second

// Writer makes a pod's volume decisions real before the pod is bound, as
// kube-scheduler's VolumeBinding PreBind does: each chosen volume is
// updated with its claimRef, each claim to provision with its selected
// node, and then the bind waits until the PV controller has bound every
// one of those claims, failing at once if it undoes a decision. Nothing
// written is taken back on failure, as in kube-scheduler: the PV
// controller finishes or releases what was started.
type Writer struct {
	Client kubernetes.Interface
	// Timeout bounds the wait for the PV controller; zero means
	// DefaultBindTimeout.
	Timeout time.Duration
}

// Write writes b for a pod going to node and waits for the claims.
func (w Writer) Write(ctx context.Context, pod *v1.Pod, node string, b *api.VolumeBinding) error {
	if b.Empty() {
		return nil
	}
	written := &api.VolumeBinding{}
	for _, sb := range b.Static {
		pv, err := w.Client.CoreV1().PersistentVolumes().Update(ctx, sb.Volume, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("binding volume %s to claim %s/%s: %w", sb.Volume.Name, sb.Claim.Namespace, sb.Claim.Name, err)
		}
		written.Static = append(written.Static, api.StaticBinding{Volume: pv, Claim: sb.Claim})
	}
	for _, c := range b.Provision {
		pvc, err := w.Client.CoreV1().PersistentVolumeClaims(c.Namespace).Update(ctx, c, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("selecting node %s for claim %s/%s: %w", node, c.Namespace, c.Name, err)
		}
		written.Provision = append(written.Provision, pvc)
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = DefaultBindTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// kube-scheduler looks once a second; looking sooner first lets a
	// fast PV controller (and the simulator's) finish a bind in
	// milliseconds.
	delay := 10 * time.Millisecond
	for {
		done, err := w.bound(ctx, pod, node, written)
		if err != nil {
			return fmt.Errorf("binding volumes: %w", err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("binding volumes: %w", ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

// bound reports whether the PV controller has bound every claim written;
// an error says a decision was undone (a volume's claimRef reset, a
// selected node removed) or no longer fits the node.
func (w Writer) bound(ctx context.Context, pod *v1.Pod, nodeName string, b *api.VolumeBinding) (bool, error) {
	node, err := w.Client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("failed to get node %q: %w", nodeName, err)
	}
	csiNode, err := w.Client.StorageV1().CSINodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		csiNode = nil
	}
	if _, err := w.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return false, fmt.Errorf("pod does not exist any more: %w", err)
	}
	for _, sb := range b.Static {
		pv, err := w.Client.CoreV1().PersistentVolumes().Get(ctx, sb.Volume.Name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("failed to check binding: %w", err)
		}
		pvc, err := w.Client.CoreV1().PersistentVolumeClaims(sb.Claim.Namespace).Get(ctx, sb.Claim.Name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("failed to check binding: %w", err)
		}
		if err := fitsNode(pv, node, csiNode); err != nil {
			return false, err
		}
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == "" {
			return false, fmt.Errorf("ClaimRef got reset for pv %q", pv.Name)
		}
		if !FullyBound(pvc) {
			return false, nil
		}
	}
	for _, c := range b.Provision {
		pvc, err := w.Client.CoreV1().PersistentVolumeClaims(c.Namespace).Get(ctx, c.Name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("failed to check provisioning pvc: %w", err)
		}
		selected, ok := pvc.Annotations[storagehelpers.AnnSelectedNode]
		if !ok && len(pvc.Annotations) == 0 {
			return false, fmt.Errorf("selectedNode annotation reset for PVC %q", pvc.Name)
		}
		if selected != nodeName {
			// A provisioner that fails removes the annotation to ask for
			// another placement.
			return false, fmt.Errorf("provisioning failed for PVC %q", pvc.Name)
		}
		if pvc.Spec.VolumeName != "" {
			pv, err := w.Client.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, fmt.Errorf("failed to get pv %q: %w", pvc.Spec.VolumeName, err)
			}
			if err := fitsNode(pv, node, csiNode); err != nil {
				return false, err
			}
		}
		if !FullyBound(pvc) {
			return false, nil
		}
	}
	return true, nil
}

// fitsNode checks a volume's node affinity against the node, in its CSI
// form where the node serves it through a migrated driver.
func fitsNode(pv *v1.PersistentVolume, node *v1.Node, csiNode *storagev1.CSINode) error {
	pv, err := translateForNode(csitrans.New(), pv, csiNode)
	if err != nil {
		return fmt.Errorf("failed to translate pv to csi: %w", err)
	}
	if err := storagehelpers.CheckNodeAffinity(pv, node.Labels); err != nil {
		return fmt.Errorf("pv %q node affinity doesn't match node %q: %w", pv.Name, node.Name, err)
	}
	return nil
}

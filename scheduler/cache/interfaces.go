package cache

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/dra"
)

// Binder binds a pod to a node (the pods/binding subresource), after
// writing what the session decided beside the node: the pod is not bound
// if any of it cannot be written.
type Binder interface {
	Bind(ctx context.Context, req BindRequest) error
}

// BindRequest is one bind and what must be written before it.
type BindRequest struct {
	Pod  *v1.Pod
	Node string
	// Volumes are the volume bindings and provisions for the pod's claims,
	// written first; the bind then waits for the PV controller to bind
	// the claims. Nil for none.
	Volumes *api.VolumeBinding
	// Claims are the ResourceClaim allocations and reservations for the
	// pod, written after the volumes. Nil for none.
	Claims *dra.Allocation
	// Annotations are written on the pod next (a plugin's decision for the
	// node's agents, such as deviceshare's GPU index). Nil for none.
	Annotations map[string]string
}

// Evictor evicts a running pod (a DisruptionTarget condition, then deletion).
type Evictor interface {
	Evict(ctx context.Context, pod *v1.Pod, reason string) error
}

// StatusUpdater writes what the scheduler concluded about PodGroups and pods.
type StatusUpdater interface {
	// UpdatePodGroupStatus writes a PodGroup's status.
	UpdatePodGroupStatus(ctx context.Context, pg *v1beta1.PodGroup) error
	// UpdatePodPending records why a pod is still not bound (its
	// PodScheduled=False condition) and the node nominated for it, if that
	// changed.
	UpdatePodPending(ctx context.Context, pod *v1.Pod, p PodPending) error
}

// PodPending is what a session concluded about a pod it did not bind, as
// Volcano's scheduler writes it: the reason (Schedulable or Unschedulable)
// and message of its PodScheduled=False condition, and the node nominated
// for it ("" leaves the pod's nomination as it is: a preemptor still
// waiting for its victims keeps the node it was given).
type PodPending struct {
	Reason, Message, NominatedNode string
}

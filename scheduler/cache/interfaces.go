package cache

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

// Binder binds a pod to a node (the pods/binding subresource).
type Binder interface {
	Bind(ctx context.Context, pod *v1.Pod, node string) error
}

// Evictor evicts a running pod (a DisruptionTarget condition, then deletion).
type Evictor interface {
	Evict(ctx context.Context, pod *v1.Pod, reason string) error
}

// StatusUpdater writes what the scheduler concluded about PodGroups and pods.
type StatusUpdater interface {
	// UpdatePodGroupStatus writes a PodGroup's status.
	UpdatePodGroupStatus(ctx context.Context, pg *v1beta1.PodGroup) error
	// UpdatePodUnschedulable records why a pod is still pending (the
	// PodScheduled=False condition with reason Unschedulable), if that
	// changed.
	UpdatePodUnschedulable(ctx context.Context, pod *v1.Pod, message string) error
}

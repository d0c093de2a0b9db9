package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

// QueueID identifies a queue: its name.
type QueueID string

// QueueInfo is a Volcano Queue as the scheduler sees it.
type QueueInfo struct {
	UID      QueueID
	Name     string
	Weight   int32
	Priority int32
	Queue    *v1beta1.Queue
}

// NewQueueInfo builds the scheduler's view of a queue.
func NewQueueInfo(q *v1beta1.Queue) *QueueInfo {
	return &QueueInfo{UID: QueueID(q.Name), Name: q.Name, Weight: q.Spec.Weight, Priority: q.Spec.Priority, Queue: q}
}

// Reclaimable reports whether other queues may reclaim this queue's
// over-share; a queue that says nothing is reclaimable.
func (q *QueueInfo) Reclaimable() bool {
	return q.Queue == nil || q.Queue.Spec.Reclaimable == nil || *q.Queue.Spec.Reclaimable
}

// IsOpen reports whether the queue accepts new work.
func (q *QueueInfo) IsOpen() bool {
	return q.Queue == nil || q.Queue.Status.State == "" || q.Queue.Status.State == v1beta1.QueueStateOpen
}

// CreationTimestamp orders queues when no plugin does.
func (q *QueueInfo) CreationTimestamp() metav1.Time {
	if q.Queue == nil {
		return metav1.Time{}
	}
	return q.Queue.CreationTimestamp
}

package api

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ExternalReservation is what a resource manager outside Kubernetes (VMs,
// another framework) holds on a node: the cache takes it off the node's
// allocatable, so that no pod is placed on it. Custom informers deliver
// them; the object's name identifies the reservation within its source.
type ExternalReservation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Node is the node the reservation is on.
	Node string `json:"node"`
	// Resources is what it holds.
	Resources v1.ResourceList `json:"resources"`
}

// DeepCopyObject makes ExternalReservation a runtime.Object, which
// client-go's informers store.
func (r *ExternalReservation) DeepCopyObject() runtime.Object {
	if r == nil {
		return nil
	}
	c := &ExternalReservation{TypeMeta: r.TypeMeta, Node: r.Node, Resources: r.Resources.DeepCopy()}
	r.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return c
}

// ExternalReservationList is a list of reservations, as a custom
// informer's list call returns it.
type ExternalReservationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExternalReservation `json:"items"`
}

// DeepCopyObject makes the list a runtime.Object.
func (l *ExternalReservationList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	c := &ExternalReservationList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	for i := range l.Items {
		c.Items = append(c.Items, *l.Items[i].DeepCopyObject().(*ExternalReservation))
	}
	return c
}

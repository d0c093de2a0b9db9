package api

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Workloads are the objects that tell kube-scheduler which pods belong
// together when a pod states no topology spread constraints of its own:
// the Services selecting it and the ReplicationController, ReplicaSet or
// StatefulSet controlling it. Its system default constraints spread a pod
// among the pods those objects select. Only the selectors are kept.
type Workloads struct {
	// Services holds, per namespace, the spec.selector of each Service
	// that has one (a Service without a selector selects no pod).
	Services map[string][]map[string]string
	// ReplicationControllers, ReplicaSets and StatefulSets are keyed by
	// "namespace/name".
	ReplicationControllers map[string]map[string]string
	ReplicaSets            map[string]*metav1.LabelSelector
	StatefulSets           map[string]*metav1.LabelSelector
}

// Empty reports whether no object is held, so that no pod has a default
// selector.
func (w *Workloads) Empty() bool {
	return w == nil || len(w.Services) == 0 && len(w.ReplicationControllers) == 0 &&
		len(w.ReplicaSets) == 0 && len(w.StatefulSets) == 0
}

// DefaultSelector is the selector kube-scheduler's system default spread
// constraints use for pod: the union of the selectors of the Services in
// its namespace that select it, narrowed by the selector of the controller
// named by its controller owner reference when that is a
// ReplicationController, ReplicaSet or StatefulSet that exists. Empty means
// the pod gets no default constraints.
func (w *Workloads) DefaultSelector(pod *v1.Pod) labels.Selector {
	set := labels.Set{}
	if w.Empty() {
		return set.AsSelector()
	}
	podLabels := labels.Set(pod.Labels)
	for _, sel := range w.Services[pod.Namespace] {
		if labels.Set(sel).AsSelectorPreValidated().Matches(podLabels) {
			set = labels.Merge(set, sel)
		}
	}
	selector := set.AsSelector()
	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil {
		return selector
	}
	key := pod.Namespace + "/" + owner.Name
	var narrower *metav1.LabelSelector
	switch owner.APIVersion + "/" + owner.Kind {
	case "v1/ReplicationController":
		if sel, ok := w.ReplicationControllers[key]; ok {
			return labels.Merge(set, sel).AsSelector()
		}
		return selector
	case "apps/v1/ReplicaSet":
		narrower = w.ReplicaSets[key]
	case "apps/v1/StatefulSet":
		narrower = w.StatefulSets[key]
	default:
		return selector
	}
	if narrower == nil {
		return selector
	}
	other, err := metav1.LabelSelectorAsSelector(narrower)
	if err != nil {
		return selector
	}
	if rs, ok := other.Requirements(); ok {
		selector = selector.Add(rs...)
	}
	return selector
}

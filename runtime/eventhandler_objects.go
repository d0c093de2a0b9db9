package runtime

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// compact is an object as cache_event carries it (docs/abi.md, section 8).
func compact(obj any) *abi.Object {
	o := &abi.Object{}
	if m, err := meta.Accessor(obj); err == nil {
		o.Name, o.Namespace, o.UID = m.GetName(), m.GetNamespace(), string(m.GetUID())
		o.Labels, o.Annotations = m.GetLabels(), m.GetAnnotations()
	}
	switch x := obj.(type) {
	case *v1.Node:
		a := wireResource(api.NewResource(x.Status.Allocatable))
		o.Allocatable = &a
		o.Taints = wireTaints(x.Spec.Taints)
		o.Unschedulable = x.Spec.Unschedulable
	case *v1.Pod:
		r := wireResource(api.PodResourceRequest(x))
		o.Requests = &r
		o.Priority = x.Spec.Priority
		o.NodeName, o.SchedulerName, o.Phase = x.Spec.NodeName, x.Spec.SchedulerName, string(x.Status.Phase)
		o.Group = x.Annotations[api.GroupNameAnnotation]
	case *v1beta1.PodGroup:
		o.Queue, o.MinMember, o.PriorityClassName = x.Spec.Queue, x.Spec.MinMember, x.Spec.PriorityClassName
		o.Phase = string(x.Status.Phase)
	case *v1beta1.Queue:
		o.Weight, o.State = x.Spec.Weight, string(x.Status.State)
		if len(x.Spec.Capability) > 0 {
			c := wireResource(api.NewResource(x.Spec.Capability))
			o.Allocatable = &c
		}
	case *schedulingv1.PriorityClass:
		v := x.Value
		o.Value = &v
	case *api.ExternalReservation:
		r := wireResource(api.NewResource(x.Resources))
		o.NodeName, o.Reserved = x.Node, &r
	}
	return o
}

// adjust returns a copy of obj with the result's fields applied, or an
// error naming a field its kind does not take.
func adjust(kind string, obj any, res *abi.CacheEventResult) (any, error) {
	switch x := obj.(type) {
	case *v1.Node:
		if res.Requests != nil || res.Priority != nil {
			return nil, fmt.Errorf("an adjustment of a Node carries requests or priority, which only Pods take")
		}
		// A shallow copy: the fields adjusted get new values, never
		// changed in place, and the rest is shared with the informer's
		// object, which nobody changes (a deep copy took about 8 µs a node
		// in a CPU profile of BenchmarkInitialSync, not kept).
		n := *x
		if res.Allocatable != nil {
			n.Status.Allocatable = replaceResources(x.Status.Allocatable, res.Allocatable)
		}
		if res.Labels != nil {
			n.Labels = res.Labels
		}
		if res.Taints != nil {
			n.Spec.Taints = make([]v1.Taint, 0, len(*res.Taints))
			for _, t := range *res.Taints {
				n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: t.Key, Value: t.Value, Effect: v1.TaintEffect(t.Effect)})
			}
		}
		return &n, nil
	case *v1.Pod:
		if res.Allocatable != nil || res.Taints != nil {
			return nil, fmt.Errorf("an adjustment of a Pod carries allocatable or taints, which only Nodes take")
		}
		p := x.DeepCopy()
		if res.Requests != nil {
			if err := setRequests(p, res.Requests); err != nil {
				return nil, err
			}
		}
		if res.Priority != nil {
			v := *res.Priority
			p.Spec.Priority = &v
		}
		if res.Labels != nil {
			p.Labels = res.Labels
		}
		return p, nil
	}
	if res.Allocatable != nil || res.Labels != nil || res.Taints != nil || res.Requests != nil || res.Priority != nil {
		return nil, fmt.Errorf("an adjustment of a %s: only Nodes and Pods can be adjusted", kind)
	}
	return obj, nil
}

// replaceResources returns list with every dimension the scheduler counts
// (those api.NewResource reads) replaced by r's; those r leaves out become
// zero. Dimensions the scheduler ignores stay as they were.
func replaceResources(list v1.ResourceList, r *abi.Resource) v1.ResourceList {
	out := v1.ResourceList{}
	counted := api.NewResource(list)
	for name, q := range list {
		if _, ok := counted.Scalars[name]; ok || name == v1.ResourceCPU || name == v1.ResourceMemory {
			continue
		}
		out[name] = q
	}
	for name, q := range fromWire(r).ToResourceList() {
		out[name] = q
	}
	return out
}

// setRequests makes the pod request r in all: the first container asks
// for it, the other containers, the init containers and the overhead for
// nothing. Only the cache's copy changes, and only what it counts.
func setRequests(p *v1.Pod, r *abi.Resource) error {
	if len(p.Spec.Containers) == 0 {
		return fmt.Errorf("the pod has no containers to carry the adjusted requests")
	}
	want := fromWire(r)
	// PodResourceRequest counts the pod itself; the containers do not ask
	// for it.
	delete(want.Scalars, v1.ResourcePods)
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].Resources.Requests = nil
	}
	for i := range p.Spec.InitContainers {
		p.Spec.InitContainers[i].Resources.Requests = nil
	}
	p.Spec.Overhead = nil
	p.Spec.Containers[0].Resources.Requests = want.ToResourceList()
	return nil
}

func fromWire(r *abi.Resource) *api.Resource {
	out := &api.Resource{MilliCPU: float64(r.MilliCPU), Memory: float64(r.Memory)}
	for name, q := range r.Scalars {
		out.SetScalar(v1.ResourceName(name), float64(q))
	}
	return out
}

// objectName names the event's object in log lines.
func objectName(ev cache.Event) string {
	obj := ev.New
	if obj == nil {
		obj = ev.Old
	}
	if m, err := meta.Accessor(obj); err == nil {
		if ns := m.GetNamespace(); ns != "" {
			return ns + "/" + m.GetName()
		}
		return m.GetName()
	}
	return fmt.Sprintf("%T", obj)
}

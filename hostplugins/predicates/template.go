package predicates

import (
	"encoding/binary"
	"sort"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// verdict is the outcome of the stable filters for one (template, node):
// pass, unschedulable, affinity, or taintBase+i for the i-th taint of the
// node's spec. Stored verdicts are offset by one so that 0 means "not yet".
type verdict uint32

const (
	pass verdict = iota
	unschedulable
	affinityMismatch
	taintBase
)

var (
	unschedulableReasons = []string{ReasonUnschedulable}
	affinityReasons      = []string{ReasonNodeAffinity}
)

// reasons returns the shared reason list of a failed verdict; callers must
// not modify it.
func (ns *nodeState) reasons(v verdict) []string {
	switch v {
	case unschedulable:
		return unschedulableReasons
	case affinityMismatch:
		return affinityReasons
	}
	return ns.taintReasons[v-taintBase]
}

// template is what the filters read of a pod, shared by every pod with the
// same scheduling-relevant fields.
type template struct {
	// required is nil when the pod has neither a node selector nor required
	// node affinity, so the affinity filter has nothing to check.
	required    *nodeaffinity.RequiredNodeAffinity
	tolerations []v1.Toleration
	// toleratesUnschedulable says the pod tolerates the taint that
	// spec.unschedulable stands for.
	toleratesUnschedulable bool
	// conflict says the required terms name nodes by metadata.name and no
	// node satisfies all of them.
	conflict bool
	ports    []api.HostPort

	nodeCount int
	once      sync.Once
	verdicts  []atomic.Uint32
}

func newTemplate(pod *v1.Pod, nodeCount int) *template {
	t := &template{tolerations: pod.Spec.Tolerations, nodeCount: nodeCount}
	aff := pod.Spec.Affinity
	hasRequired := aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
	if hasRequired || pod.Spec.NodeSelector != nil {
		r := nodeaffinity.GetRequiredNodeAffinity(pod)
		t.required = &r
	}
	if hasRequired {
		t.conflict = nodeNamesConflict(aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
	}
	t.toleratesUnschedulable = corev1helpers.TolerationsTolerateTaint(pod.Spec.Tolerations, &v1.Taint{
		Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule,
	})
	t.ports = api.PodHostPorts(pod)
	return t
}

// nodeNamesConflict reports kube-scheduler's NodeAffinity PreFilter conflict:
// every term restricts metadata.name with In, and the union over terms of
// the per-term intersections is empty.
func nodeNamesConflict(terms []v1.NodeSelectorTerm) bool {
	if len(terms) == 0 {
		return false
	}
	var union sets.Set[string]
	for _, term := range terms {
		var names sets.Set[string]
		for _, r := range term.MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != v1.NodeSelectorOpIn {
				continue
			}
			s := sets.New(r.Values...)
			if names == nil {
				names = s
			} else {
				names = names.Intersection(s)
			}
		}
		if names == nil {
			return false
		}
		union = union.Union(names)
	}
	return union.Len() == 0
}

// cachedVerdict returns the stable filters' outcome, computing it once.
func (t *template) cachedVerdict(ns *nodeState, a *Args) verdict {
	t.once.Do(func() { t.verdicts = make([]atomic.Uint32, t.nodeCount) })
	slot := &t.verdicts[ns.index]
	if v := slot.Load(); v != 0 {
		return verdict(v - 1)
	}
	v := t.evaluate(ns, a)
	slot.Store(uint32(v) + 1)
	return v
}

// evaluate runs NodeUnschedulable, NodeAffinity and TaintToleration.
func (t *template) evaluate(ns *nodeState, a *Args) verdict {
	node := ns.info.Node
	if node == nil {
		return pass
	}
	if node.Spec.Unschedulable && !t.toleratesUnschedulable {
		return unschedulable
	}
	if a.NodeAffinity && t.required != nil {
		// A term that does not parse matches nothing, as in kube-scheduler.
		if ok, _ := t.required.Match(node); !ok {
			return affinityMismatch
		}
	}
	if a.TaintToleration && len(node.Spec.Taints) > 0 {
		taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(node.Spec.Taints, t.tolerations, doNotSchedule)
		if untolerated {
			for i := range node.Spec.Taints {
				s := &node.Spec.Taints[i]
				if doNotSchedule(s) && s.Key == taint.Key && s.Value == taint.Value && s.Effect == taint.Effect {
					return taintBase + verdict(i)
				}
			}
		}
	}
	return pass
}

func doNotSchedule(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// templateKey appends to buf a byte string that is equal for two pods exactly
// when their node selector, required node affinity, tolerations and host
// ports are equal.
func templateKey(buf []byte, pod *v1.Pod) []byte {
	sel := pod.Spec.NodeSelector
	if sel != nil {
		keys := make([]string, 0, len(sel))
		for k := range sel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf = append(buf, 's')
		for _, k := range keys {
			buf = appendString(buf, k)
			buf = appendString(buf, sel[k])
		}
	}
	buf = append(buf, '|')
	if aff := pod.Spec.Affinity; aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		b, _ := aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.Marshal()
		buf = append(buf, 'a')
		buf = appendString(buf, string(b))
	}
	buf = append(buf, '|')
	for i := range pod.Spec.Tolerations {
		b, _ := pod.Spec.Tolerations[i].Marshal()
		buf = appendString(buf, string(b))
	}
	buf = append(buf, '|')
	for _, hp := range api.PodHostPorts(pod) {
		buf = appendString(buf, hp.IP)
		buf = appendString(buf, hp.Protocol)
		buf = binary.AppendUvarint(buf, uint64(hp.Port))
	}
	return buf
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

package podrules

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Description is a pod's rules as this package parses them, for the Wasm
// view: guests get the parsed form, so that they apply exactly the rules
// the native plugins do without repeating Kubernetes' selector syntax.
type Description struct {
	// RequiredAffinity, RequiredAnti, PreferredAffinity and PreferredAnti
	// are the four kinds of affinity terms; a kind that does not parse is
	// empty and AffinityErr says why (kube-scheduler's words).
	RequiredAffinity, RequiredAnti   []TermDescription
	PreferredAffinity, PreferredAnti []TermDescription
	AffinityErr                      error
	// Constraints are the pod's topology spread constraints in spec order.
	Constraints []ConstraintDescription
}

// TermDescription is one parsed affinity term.
type TermDescription struct {
	// Selector and NamespaceSelector are nil when they match nothing.
	Selector, NamespaceSelector []Requirement
	// Namespaces are the namespaces named, sorted; the pod's own when
	// the term names neither namespaces nor a namespace selector.
	Namespaces  []string
	TopologyKey string
	Weight      int32
}

// Requirement is one requirement of a label selector: "In", "NotIn",
// "Exists" or "DoesNotExist" (an equality is "In" with one value).
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// ConstraintDescription is one spread constraint with kube-scheduler's
// defaults filled in; when it does not parse, only WhenUnsatisfiable and
// Err are set (the filter reports the first DoNotSchedule error, the score
// the first ScheduleAnyway one).
type ConstraintDescription struct {
	MaxSkew                              int32
	TopologyKey, WhenUnsatisfiable       string
	Selector                             []Requirement
	MinDomains                           int32
	NodeAffinityPolicy, NodeTaintsPolicy string
	Err                                  error
}

// Describe parses a pod's inter-pod affinity terms and spread constraints.
func Describe(pod *v1.Pod) Description {
	var d Description
	terms, err := parsePodTerms(pod)
	d.AffinityErr = err
	d.RequiredAffinity = describeTerms(terms.requiredAffinity)
	d.RequiredAnti = describeTerms(terms.requiredAnti)
	d.PreferredAffinity = describeTerms(terms.preferredAffinity)
	d.PreferredAnti = describeTerms(terms.preferredAnti)
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		tc, err := newConstraint(pod, c)
		if err != nil {
			d.Constraints = append(d.Constraints, ConstraintDescription{WhenUnsatisfiable: string(c.WhenUnsatisfiable), Err: err})
			continue
		}
		d.Constraints = append(d.Constraints, describeConstraint(&tc, c.WhenUnsatisfiable))
	}
	return d
}

// DescribeSpreadDefaults describes the system default constraints over
// selector, as NewSpreadScore applies them.
func DescribeSpreadDefaults(selector labels.Selector) []ConstraintDescription {
	cs := systemDefaults(selector)
	out := make([]ConstraintDescription, len(cs))
	for i := range cs {
		out[i] = describeConstraint(&cs[i], v1.ScheduleAnyway)
	}
	return out
}

func describeConstraint(c *constraint, when v1.UnsatisfiableConstraintAction) ConstraintDescription {
	return ConstraintDescription{
		MaxSkew: c.maxSkew, TopologyKey: c.key, WhenUnsatisfiable: string(when),
		Selector: requirements(c.selector), MinDomains: c.minDomains,
		NodeAffinityPolicy: policy(c.honorAffinity), NodeTaintsPolicy: policy(c.honorTaints),
	}
}

func policy(honor bool) string {
	if honor {
		return string(v1.NodeInclusionPolicyHonor)
	}
	return string(v1.NodeInclusionPolicyIgnore)
}

func describeTerms(ts []term) []TermDescription {
	if len(ts) == 0 {
		return nil
	}
	out := make([]TermDescription, len(ts))
	for i := range ts {
		t := &ts[i]
		ns := t.namespaces.UnsortedList()
		sort.Strings(ns)
		out[i] = TermDescription{Selector: requirements(t.selector), NamespaceSelector: requirements(t.nsSelector),
			Namespaces: ns, TopologyKey: t.topologyKey, Weight: t.weight}
	}
	return out
}

// requirements lists a selector's requirements: nil for a selector that
// matches nothing, empty (not nil) for one that matches everything.
func requirements(sel labels.Selector) []Requirement {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil
	}
	out := make([]Requirement, 0, len(reqs))
	for _, r := range reqs {
		var op string
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = string(metav1.LabelSelectorOpIn)
		case selection.NotEquals, selection.NotIn:
			op = string(metav1.LabelSelectorOpNotIn)
		case selection.Exists:
			op = string(metav1.LabelSelectorOpExists)
		case selection.DoesNotExist:
			op = string(metav1.LabelSelectorOpDoesNotExist)
		default: // Gt and Lt: a label selector cannot hold them
			op = string(r.Operator())
		}
		out = append(out, Requirement{Key: r.Key(), Operator: op, Values: r.ValuesUnsorted()})
	}
	return out
}

package runtime

import (
	"sort"

	"github.com/caldera-scheduler/caldera/abi"
)

// Hand-written encoders of the view's ABI 1.4 fields (view_podrules.go),
// in the forms msgpack/v5 makes of the abi types, as in view_wire.go.

// appendTaskPodRules writes the task fields of 1.4, each omitempty.
func appendTaskPodRules(b []byte, t *abi.Task) []byte {
	if t.Terminating {
		b = appendBool(appendStr(b, "terminating"), true)
	}
	b = appendPodAffinityField(b, "podAffinity", t.PodAffinity)
	b = appendPodAffinityField(b, "podAntiAffinity", t.PodAntiAffinity)
	b = appendStrField(b, "affinityError", t.AffinityError)
	if len(t.SpreadConstraints) > 0 {
		b = appendArrayLen(appendStr(b, "spreadConstraints"), len(t.SpreadConstraints))
		for i := range t.SpreadConstraints {
			b = appendSpreadConstraint(b, &t.SpreadConstraints[i])
		}
	}
	if t.SpreadDefaulted {
		b = appendBool(appendStr(b, "spreadDefaulted"), true)
	}
	return appendTaskGPUs(appendStrsField(b, "images", t.Images), t)
}

// taskPodRulesFields counts the fields appendTaskPodRules writes, and the
// GPU request after them.
func taskPodRulesFields(t *abi.Task) int {
	return countTrue(t.Terminating, t.PodAffinity != nil, t.PodAntiAffinity != nil, t.AffinityError != "",
		len(t.SpreadConstraints) > 0, t.SpreadDefaulted, len(t.Images) > 0, t.GPUMemory != 0, t.GPUNumber != 0)
}

// appendNodePodRules writes the node fields of 1.4, each omitempty.
func appendNodePodRules(b []byte, n *abi.Node) []byte {
	if len(n.Images) > 0 {
		b = appendArrayLen(appendStr(b, "images"), len(n.Images))
		for _, img := range n.Images {
			b = appendMapLen(b, 1+countTrue(len(img.Names) > 0))
			b = appendStrsField(b, "names", img.Names)
			b = appendInt64(appendStr(b, "size"), img.Size)
		}
	}
	if len(n.Others) > 0 {
		b = appendArrayLen(appendStr(b, "others"), len(n.Others))
		for i := range n.Others {
			b = appendPod(b, &n.Others[i])
		}
	}
	return appendGPUsField(b, n.GPUs)
}

// nodePodRulesFields counts the fields appendNodePodRules writes, and the
// cards after them.
func nodePodRulesFields(n *abi.Node) int {
	return countTrue(len(n.Images) > 0, len(n.Others) > 0, len(n.GPUs) > 0)
}

func appendPod(b []byte, p *abi.Pod) []byte {
	b = appendMapLen(b, 2+countTrue(len(p.Labels) > 0, p.Terminating, p.PodAffinity != nil, p.PodAntiAffinity != nil))
	b = appendStr(appendStr(b, "namespace"), p.Namespace)
	b = appendStr(appendStr(b, "name"), p.Name)
	b = appendStrMapField(b, "labels", p.Labels)
	if p.Terminating {
		b = appendBool(appendStr(b, "terminating"), true)
	}
	b = appendPodAffinityField(b, "podAffinity", p.PodAffinity)
	return appendPodAffinityField(b, "podAntiAffinity", p.PodAntiAffinity)
}

func appendPodAffinityField(b []byte, key string, a *abi.PodAffinity) []byte {
	if a == nil {
		return b
	}
	b = appendMapLen(appendStr(b, key), countTrue(len(a.Required) > 0, len(a.Preferred) > 0))
	if len(a.Required) > 0 {
		b = appendArrayLen(appendStr(b, "required"), len(a.Required))
		for i := range a.Required {
			b = appendAffinityTerm(b, &a.Required[i])
		}
	}
	if len(a.Preferred) > 0 {
		b = appendArrayLen(appendStr(b, "preferred"), len(a.Preferred))
		for i := range a.Preferred {
			b = appendMapLen(b, 2)
			b = appendInt32Field(b, "weight", a.Preferred[i].Weight)
			b = appendAffinityTerm(appendStr(b, "term"), &a.Preferred[i].Term)
		}
	}
	return b
}

func appendAffinityTerm(b []byte, t *abi.PodAffinityTerm) []byte {
	b = appendMapLen(b, 1+countTrue(t.Selector != nil, len(t.Namespaces) > 0, t.NamespaceSelector != nil))
	b = appendSelectorField(b, "selector", t.Selector)
	b = appendStrsField(b, "namespaces", t.Namespaces)
	b = appendSelectorField(b, "namespaceSelector", t.NamespaceSelector)
	return appendStr(appendStr(b, "topologyKey"), t.TopologyKey)
}

func appendSpreadConstraint(b []byte, c *abi.SpreadConstraint) []byte {
	b = appendMapLen(b, 6+countTrue(c.Selector != nil, c.Error != ""))
	b = appendInt32Field(b, "maxSkew", c.MaxSkew)
	b = appendStr(appendStr(b, "topologyKey"), c.TopologyKey)
	b = appendStr(appendStr(b, "whenUnsatisfiable"), c.WhenUnsatisfiable)
	b = appendSelectorField(b, "selector", c.Selector)
	b = appendInt32Field(b, "minDomains", c.MinDomains)
	b = appendStr(appendStr(b, "nodeAffinityPolicy"), c.NodeAffinityPolicy)
	b = appendStr(appendStr(b, "nodeTaintsPolicy"), c.NodeTaintsPolicy)
	return appendStrField(b, "error", c.Error)
}

// appendSelectorField writes an omitempty *Selector: absent matches
// nothing, present with no requirements ({}) matches everything.
func appendSelectorField(b []byte, key string, s *abi.Selector) []byte {
	if s == nil {
		return b
	}
	b = appendMapLen(appendStr(b, key), countTrue(len(s.Requirements) > 0))
	return appendRequirements(b, "requirements", s.Requirements)
}

// encodeNamespaces encodes View.namespaces with its keys in order (the
// reflection encoder orders only the innermost maps); nil for none, which
// leaves the field out.
func encodeNamespaces(ns map[string]map[string]string) []byte {
	if len(ns) == 0 {
		return nil
	}
	names := make([]string, 0, len(ns))
	for name := range ns {
		names = append(names, name)
	}
	sort.Strings(names)
	b := appendMapLen(nil, len(ns))
	for _, name := range names {
		b = appendStr(b, name)
		labels := ns[name] // a namespace without labels has an empty map, never nil
		b = appendMapLen(b, len(labels))
		var buf [16]string
		for _, k := range sortedKeys(labels, buf[:0]) {
			b = appendStr(appendStr(b, k), labels[k])
		}
	}
	return b
}

func appendStrsField(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	return appendStrs(appendStr(b, key), ss)
}

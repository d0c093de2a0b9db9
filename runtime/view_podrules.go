package runtime

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/podrules"
)

// The view's fields for the rules that depend on other pods (ABI 1.4):
// the parsed affinity terms and spread constraints of tasks and of the
// other pods on nodes, images, and namespaces' labels.

// wirePodRules fills a task's affinity, spread and image fields;
// defaults is the pod's system default spread selector, if any
// (framework.Session.SpreadDefaults).
func wirePodRules(wt *abi.Task, p *v1.Pod, defaults labels.Selector) {
	wt.Terminating = p.DeletionTimestamp != nil
	wt.Images = api.PodImageNames(p)
	if defaults != nil {
		wt.SpreadDefaulted = true
		wt.SpreadConstraints = wireConstraints(podrules.DescribeSpreadDefaults(defaults))
	}
	if !framework.HasPodRules(p) {
		return
	}
	d := podrules.Describe(p)
	wt.PodAffinity, wt.PodAntiAffinity = wireAffinities(&d)
	if d.AffinityErr != nil {
		wt.AffinityError = d.AffinityErr.Error()
	}
	if len(d.Constraints) > 0 {
		wt.SpreadConstraints = wireConstraints(d.Constraints)
	}
}

func wireConstraints(cs []podrules.ConstraintDescription) []abi.SpreadConstraint {
	out := make([]abi.SpreadConstraint, 0, len(cs))
	for _, c := range cs {
		if c.Err != nil {
			out = append(out, abi.SpreadConstraint{WhenUnsatisfiable: c.WhenUnsatisfiable, Error: c.Err.Error()})
			continue
		}
		out = append(out, abi.SpreadConstraint{
			MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, WhenUnsatisfiable: c.WhenUnsatisfiable,
			Selector: wireSelector(c.Selector), MinDomains: c.MinDomains,
			NodeAffinityPolicy: c.NodeAffinityPolicy, NodeTaintsPolicy: c.NodeTaintsPolicy,
		})
	}
	return out
}

// wireOther is a pod on a node that is not a task of the view: only what
// the rules read of an existing pod.
func wireOther(p *v1.Pod) abi.Pod {
	wp := abi.Pod{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels, Terminating: p.DeletionTimestamp != nil}
	if a := p.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		d := podrules.Describe(p)
		wp.PodAffinity, wp.PodAntiAffinity = wireAffinities(&d)
	}
	return wp
}

// wireOthers lists the pods on a node whose tasks are not in the view,
// sorted by namespace and name so that equal nodes encode equally.
func wireOthers(n *api.NodeInfo, inView map[api.TaskID]int32) []abi.Pod {
	var out []abi.Pod
	for id, t := range n.Tasks {
		if _, ok := inView[id]; ok || t.Pod == nil {
			continue
		}
		out = append(out, wireOther(t.Pod))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// othersDigest identifies which of a node's pods are not in the view: the
// node's encoding depends on it as well as on the node.
func othersDigest(n *api.NodeInfo, inView map[api.TaskID]int32) uint64 {
	var d uint64
	for id := range n.Tasks {
		if _, ok := inView[id]; !ok {
			d ^= fnv64a([]byte(id))
		}
	}
	return d
}

func wireImages(images []v1.ContainerImage) []abi.Image {
	if len(images) == 0 {
		return nil
	}
	out := make([]abi.Image, len(images))
	for i, img := range images {
		out[i] = abi.Image{Names: img.Names, Size: img.SizeBytes}
	}
	return out
}

// wireAffinities are a pod's podAffinity and podAntiAffinity as parsed.
func wireAffinities(d *podrules.Description) (affinity, anti *abi.PodAffinity) {
	return wirePodAffinity(d.RequiredAffinity, d.PreferredAffinity), wirePodAffinity(d.RequiredAnti, d.PreferredAnti)
}

func wirePodAffinity(required, preferred []podrules.TermDescription) *abi.PodAffinity {
	if len(required) == 0 && len(preferred) == 0 {
		return nil
	}
	out := &abi.PodAffinity{}
	for _, t := range required {
		out.Required = append(out.Required, wireAffinityTerm(t))
	}
	for _, t := range preferred {
		out.Preferred = append(out.Preferred, abi.WeightedPodAffinityTerm{Weight: t.Weight, Term: wireAffinityTerm(t)})
	}
	return out
}

func wireAffinityTerm(t podrules.TermDescription) abi.PodAffinityTerm {
	return abi.PodAffinityTerm{Selector: wireSelector(t.Selector), Namespaces: t.Namespaces,
		NamespaceSelector: wireSelector(t.NamespaceSelector), TopologyKey: t.TopologyKey}
}

// wireSelector keeps the difference between a selector that matches
// nothing (nil) and one that matches everything (no requirements).
func wireSelector(rs []podrules.Requirement) *abi.Selector {
	if rs == nil {
		return nil
	}
	out := &abi.Selector{Requirements: make([]abi.NodeSelectorRequirement, len(rs))}
	for i, r := range rs {
		out.Requirements[i] = abi.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
	}
	return out
}

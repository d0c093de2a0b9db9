package api

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
)

// ClusterTopHyperNode is the hypernode every session adds above the
// cluster's own, one tier higher than the highest, holding every node: a
// job may always be placed within it. Volcano v1.15 names it the same.
const ClusterTopHyperNode = "<cluster-top-hypernode>"

// HyperNodeInfo is one hypernode of the session: a switch tier grouping
// nodes (members of type Node) and lower hypernodes (members of type
// HyperNode).
type HyperNodeInfo struct {
	Name   string
	Tier   int
	Parent string
	// Children are the member hypernodes, by name.
	Children []string
	// Nodes are the session's nodes under the hypernode, at any depth, in
	// the session's node order; NodeSet holds their names.
	Nodes   []*NodeInfo
	NodeSet map[string]bool
}

// HyperNodes is the session's network topology.
type HyperNodes struct {
	Info map[string]*HyperNodeInfo
	// Tiers are the tiers that have hypernodes, lowest first, the cluster
	// top's last; ByTier lists each tier's hypernodes by name.
	Tiers  []int
	ByTier map[int][]string
	// TierNames maps a tierName to its tier, for highestTierName.
	TierNames map[string]int
	// Err says why the HyperNodes cannot be used (a cycle, a hypernode
	// with two parents); jobs with a network topology then wait, as in
	// Volcano, where HyperNodesReadyToSchedule is false.
	Err error
	// Warnings are member selectors that select nothing because they are
	// malformed (a regex that does not compile, a bad label selector).
	Warnings []string
	// lowest maps a node to the lowest-tier hypernode holding it.
	lowest map[string]string
	// names lists Info's keys, sorted.
	names []string
}

// BuildHyperNodes resolves the HyperNode objects over the session's nodes
// (in order) and adds ClusterTopHyperNode. As Volcano: a Node member is
// selected by exact name, regex over node names or a label selector; a
// HyperNode member only by exact name; a hypernode without a parent hangs
// from the cluster top.
func BuildHyperNodes(objs []*topologyv1alpha1.HyperNode, nodes []*NodeInfo) *HyperNodes {
	h := &HyperNodes{Info: map[string]*HyperNodeInfo{}, ByTier: map[int][]string{}, TierNames: map[string]int{}}
	sorted := slices.Clone(objs)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Name < sorted[b].Name })
	for _, o := range sorted {
		h.Info[o.Name] = &HyperNodeInfo{Name: o.Name, Tier: o.Spec.Tier}
		if o.Spec.TierName != "" {
			h.TierNames[o.Spec.TierName] = o.Spec.Tier
		}
	}
	members := map[string]map[string]bool{}
	for _, o := range sorted {
		own := map[string]bool{}
		for _, m := range o.Spec.Members {
			switch m.Type {
			case topologyv1alpha1.MemberTypeNode:
				h.selectNodes(o.Name, m.Selector, nodes, own)
			case topologyv1alpha1.MemberTypeHyperNode:
				if m.Selector.ExactMatch == nil || m.Selector.ExactMatch.Name == "" {
					h.Warnings = append(h.Warnings, fmt.Sprintf("hypernode %s: a HyperNode member is selected by exactMatch.name only; this one selects nothing", o.Name))
					continue
				}
				if err := h.adopt(o.Name, m.Selector.ExactMatch.Name); err != nil && h.Err == nil {
					h.Err = err
				}
			}
		}
		members[o.Name] = own
	}
	if h.Err == nil {
		h.Err = h.resolveNodes(members, nodes)
	}
	h.addClusterTop(nodes)
	h.index()
	return h
}

// selectNodes adds to own the nodes a Node member selects.
func (h *HyperNodes) selectNodes(hn string, sel topologyv1alpha1.MemberSelector, nodes []*NodeInfo, own map[string]bool) {
	if sel.ExactMatch != nil && sel.ExactMatch.Name != "" {
		own[sel.ExactMatch.Name] = true
	}
	if sel.RegexMatch != nil {
		re, err := regexp.Compile(sel.RegexMatch.Pattern)
		if err != nil {
			h.Warnings = append(h.Warnings, fmt.Sprintf("hypernode %s: regexMatch %q does not compile, so it selects no node: %v", hn, sel.RegexMatch.Pattern, err))
		} else {
			for _, n := range nodes {
				if re.MatchString(n.Name) {
					own[n.Name] = true
				}
			}
		}
	}
	if lm := sel.LabelMatch; lm != nil && (len(lm.MatchLabels) > 0 || len(lm.MatchExpressions) > 0) {
		s, err := metav1.LabelSelectorAsSelector(lm)
		if err != nil {
			h.Warnings = append(h.Warnings, fmt.Sprintf("hypernode %s: labelMatch is not a valid selector, so it selects no node: %v", hn, err))
			return
		}
		for _, n := range nodes {
			if n.Node != nil && s.Matches(labels.Set(n.Node.Labels)) {
				own[n.Name] = true
			}
		}
	}
}

// adopt makes member a child of parent; a hypernode named as a member
// before it exists is kept as a placeholder, as Volcano does.
func (h *HyperNodes) adopt(parent, member string) error {
	child := h.Info[member]
	if child == nil {
		child = &HyperNodeInfo{Name: member}
		h.Info[member] = child
	}
	if child.Parent != "" && child.Parent != parent {
		return fmt.Errorf("hypernode %s is a member of both %s and %s", member, child.Parent, parent)
	}
	if child.Parent == "" {
		child.Parent = parent
		h.Info[parent].Children = append(h.Info[parent].Children, member)
	}
	return nil
}

// resolveNodes gives every hypernode the nodes of its subtree, in the
// session's node order, and reports a cycle.
func (h *HyperNodes) resolveNodes(members map[string]map[string]bool, nodes []*NodeInfo) error {
	under := map[string]map[string]bool{}
	var walk func(name string, chain []string) (map[string]bool, error)
	walk = func(name string, chain []string) (map[string]bool, error) {
		if slices.Contains(chain, name) {
			return nil, fmt.Errorf("hypernodes form a cycle: %v", append(chain, name))
		}
		if set, ok := under[name]; ok {
			return set, nil
		}
		set := map[string]bool{}
		for n := range members[name] {
			set[n] = true
		}
		for _, c := range h.Info[name].Children {
			cs, err := walk(c, append(chain, name))
			if err != nil {
				return nil, err
			}
			for n := range cs {
				set[n] = true
			}
		}
		under[name] = set
		return set, nil
	}
	for _, name := range h.sortedNames() {
		set, err := walk(name, nil)
		if err != nil {
			return err
		}
		hn := h.Info[name]
		hn.NodeSet = map[string]bool{}
		for _, n := range nodes {
			if set[n.Name] {
				hn.Nodes = append(hn.Nodes, n)
				hn.NodeSet[n.Name] = true
			}
		}
	}
	return nil
}

// Names returns the hypernodes' names, sorted; the caller must not change
// the slice.
func (h *HyperNodes) Names() []string { return h.names }

// sortedNames lists Info's keys in order while the tree is being built.
func (h *HyperNodes) sortedNames() []string {
	out := make([]string, 0, len(h.Info))
	for name := range h.Info {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// addClusterTop puts ClusterTopHyperNode above every hypernode that has no
// parent, one tier above the highest (tier 1 when there are none).
func (h *HyperNodes) addClusterTop(nodes []*NodeInfo) {
	top := &HyperNodeInfo{Name: ClusterTopHyperNode, Tier: 1, Nodes: nodes, NodeSet: make(map[string]bool, len(nodes))}
	for _, n := range nodes {
		top.NodeSet[n.Name] = true
	}
	for _, name := range h.sortedNames() {
		hn := h.Info[name]
		if hn.Tier >= top.Tier {
			top.Tier = hn.Tier + 1
		}
		if hn.Parent == "" {
			hn.Parent = ClusterTopHyperNode
			top.Children = append(top.Children, name)
		}
	}
	h.Info[ClusterTopHyperNode] = top
}

// index fills Tiers, ByTier and the lowest hypernode of each node.
func (h *HyperNodes) index() {
	h.names = h.sortedNames()
	for _, name := range h.names {
		t := h.Info[name].Tier
		h.ByTier[t] = append(h.ByTier[t], name)
	}
	for t := range h.ByTier {
		h.Tiers = append(h.Tiers, t)
	}
	sort.Ints(h.Tiers)
	h.lowest = map[string]string{}
	if len(h.Tiers) == 0 {
		return
	}
	for _, name := range h.ByTier[h.Tiers[0]] {
		for _, n := range h.Info[name].Nodes {
			if _, seen := h.lowest[n.Name]; !seen {
				h.lowest[n.Name] = name
			}
		}
	}
}

// Top returns ClusterTopHyperNode.
func (h *HyperNodes) Top() *HyperNodeInfo { return h.Info[ClusterTopHyperNode] }

// LowestOf returns the hypernode of the lowest tier that holds the node,
// or "" when no hypernode of that tier does (Volcano's
// FindHyperNodeForNode).
func (h *HyperNodes) LowestOf(node string) string { return h.lowest[node] }

// Ancestors returns the hypernode and then its ancestors, up to the top.
func (h *HyperNodes) Ancestors(name string) []string {
	out := []string{name}
	for cur := h.Info[name]; cur != nil && cur.Parent != "" && !slices.Contains(out, cur.Parent); cur = h.Info[cur.Parent] {
		out = append(out, cur.Parent)
	}
	return out
}

// LCA returns the lowest hypernode holding both a and b; either may be
// empty, in which case the other is returned.
func (h *HyperNodes) LCA(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	up := h.Ancestors(a)
	for _, anc := range h.Ancestors(b) {
		if slices.Contains(up, anc) {
			return anc
		}
	}
	return ""
}

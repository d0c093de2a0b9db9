package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// topology indexes the session's hypernodes by handle: the view sends
// each hypernode's parent and the nodes directly under it, and the plugin
// needs every node under each, and per node the hypernodes holding it.
type topology struct {
	parent []int32
	tier   []int32
	// children lists each hypernode's children, in handle (name) order.
	children [][]int32
	// nodes are the node handles under each hypernode at every depth, in
	// handle order; member marks them.
	nodes  [][]int32
	member []bitset
	// holding lists, per node handle, the hypernodes holding it.
	holding [][]int32
	// lowest is, per node, the first hypernode in name order of the lowest
	// tier any hypernode has that holds it (-1 for none): Volcano's
	// FindHyperNodeForNode.
	lowest []int32
	// atTier is, per node, its first hypernode in name order at each tier
	// from minTier (-1 for none); nil for a node no hypernode holds.
	atTier           [][]int32
	minTier, maxTier int32
	// top is the cluster top: the hypernode without a parent.
	top int32
}

type bitset []uint64

func (b bitset) has(i int32) bool { return b[i/64]&(1<<(uint(i)%64)) != 0 }
func (b bitset) set(i int32)      { b[i/64] |= 1 << (uint(i) % 64) }

func (t *topology) index(hns caldera.HyperNodes, nodeCount int) {
	n := len(hns)
	*t = topology{parent: make([]int32, n), tier: make([]int32, n), children: make([][]int32, n),
		nodes: make([][]int32, n), member: make([]bitset, n), holding: make([][]int32, nodeCount),
		lowest: make([]int32, nodeCount), atTier: make([][]int32, nodeCount), top: -1}
	for h := range hns {
		t.parent[h], t.tier[h] = hns[h].Parent, hns[h].Tier
		if h == 0 || hns[h].Tier < t.minTier {
			t.minTier = hns[h].Tier
		}
		if h == 0 || hns[h].Tier > t.maxTier {
			t.maxTier = hns[h].Tier
		}
		t.member[h] = make(bitset, (nodeCount+63)/64)
	}
	for h := range hns {
		if p := hns[h].Parent; p >= 0 && int(p) < n {
			t.children[p] = append(t.children[p], int32(h))
		} else if t.top < 0 {
			t.top = int32(h)
		}
	}
	// A node directly under a hypernode is under each of its ancestors.
	for h := range hns {
		for _, node := range hns[h].Nodes {
			if node < 0 || int(node) >= nodeCount {
				continue
			}
			for _, a := range t.ancestors(int32(h)) {
				t.member[a].set(node)
			}
		}
	}
	for node := range t.lowest {
		t.lowest[node] = -1
	}
	tiers := int(t.maxTier-t.minTier) + 1
	for h := range hns {
		for node := int32(0); int(node) < nodeCount; node++ {
			if !t.member[h].has(node) {
				continue
			}
			t.nodes[h] = append(t.nodes[h], node)
			t.holding[node] = append(t.holding[node], int32(h))
			if t.tier[h] == t.minTier && t.lowest[node] < 0 {
				t.lowest[node] = int32(h)
			}
			at := t.atTier[node]
			if at == nil {
				at = make([]int32, tiers)
				for i := range at {
					at[i] = -1
				}
				t.atTier[node] = at
			}
			if i := t.tier[h] - t.minTier; at[i] < 0 {
				at[i] = int32(h)
			}
		}
	}
}

func (t *topology) holds(h, node int32) bool {
	return node >= 0 && int(node) < len(t.holding) && t.member[h].has(node)
}

// ancestors returns h and then its ancestors up to the cluster top; a
// cycle (the scheduler then places no job by topology) ends the walk.
func (t *topology) ancestors(h int32) []int32 {
	out := []int32{h}
	for cur := t.parent[h]; cur >= 0 && int(cur) < len(t.parent) && !has(out, cur); cur = t.parent[cur] {
		out = append(out, cur)
	}
	return out
}

// lca returns the lowest hypernode holding both, -1 for none; either may
// be -1, in which case the other is returned.
func (t *topology) lca(a, b int32) int32 {
	if a < 0 {
		return b
	}
	if b < 0 {
		return a
	}
	up := t.ancestors(a)
	for _, anc := range t.ancestors(b) {
		if has(up, anc) {
			return anc
		}
	}
	return -1
}

// subtree lists root and the hypernodes below it, breadth first.
func (t *topology) subtree(root int32) []int32 {
	seen := make([]bool, len(t.parent))
	out := []int32{root}
	seen[root] = true
	for i := 0; i < len(out); i++ {
		for _, c := range t.children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func has(list []int32, x int32) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

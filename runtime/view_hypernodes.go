package runtime

import (
	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// hyperNodeHandles numbers the session's hypernodes in name order, the
// cluster top included: a hypernode handle is an index in View.hyperNodes
// (1.9).
func hyperNodeHandles(h *api.HyperNodes) ([]*api.HyperNodeInfo, map[string]int32) {
	if h == nil {
		return nil, nil
	}
	names := h.Names()
	list := make([]*api.HyperNodeInfo, len(names))
	index := make(map[string]int32, len(names))
	for i, name := range names {
		list[i], index[name] = h.Info[name], int32(i)
	}
	return list, index
}

// hyperNodeHandle is the handle of a hypernode by name, nil for none.
func (h *handles) hyperNodeHandle(name string) *int32 {
	if i, ok := h.hyperNodes[name]; ok && name != "" {
		return &i
	}
	return nil
}

// hyperNodeIndex is the handle of a hypernode by name, -1 for none.
func (h *handles) hyperNodeIndex(name string) int32 {
	if i, ok := h.hyperNodes[name]; ok && name != "" {
		return i
	}
	return -1
}

// wireHyperNodes is View.hyperNodes (1.9): each hypernode with its parent's
// handle and the handles of the nodes directly under it, those none of its
// children holds, in handle order (HyperNodeInfo.Nodes keeps the session's
// node order, which is handle order).
func wireHyperNodes(list []*api.HyperNodeInfo, index map[string]int32, nodes map[string]int32) []abi.HyperNode {
	out := make([]abi.HyperNode, 0, len(list))
	for _, hn := range list {
		w := abi.HyperNode{Name: hn.Name, Tier: int32(hn.Tier), Parent: -1}
		if p, ok := index[hn.Parent]; ok && hn.Parent != "" {
			w.Parent = p
		}
		var children []*api.HyperNodeInfo
		for _, c := range hn.Children {
			if child := list[index[c]]; child != nil && child.Name == c {
				children = append(children, child)
			}
		}
	node:
		for _, n := range hn.Nodes {
			for _, c := range children {
				if c.NodeSet[n.Name] {
					continue node
				}
			}
			if handle, ok := nodes[n.Name]; ok {
				w.Nodes = append(w.Nodes, handle)
			}
		}
		out = append(out, w)
	}
	return out
}

// encodeHyperNodes encodes View.hyperNodes by hand, as reflection would;
// nil for none, which leaves the field out.
func encodeHyperNodes(hns []abi.HyperNode) msgpack.RawMessage {
	if len(hns) == 0 {
		return nil
	}
	b := appendArrayLen(nil, len(hns))
	for i := range hns {
		b = appendHyperNode(b, &hns[i])
	}
	return b
}

func appendHyperNode(b []byte, hn *abi.HyperNode) []byte {
	b = appendMapLen(b, 3+countTrue(len(hn.Nodes) > 0))
	b = appendStr(appendStr(b, "name"), hn.Name)
	b = appendInt32Field(b, "tier", hn.Tier)
	b = appendInt32Field(b, "parent", hn.Parent)
	if len(hn.Nodes) > 0 {
		b = appendArrayLen(appendStr(b, "nodes"), len(hn.Nodes))
		for _, n := range hn.Nodes {
			b = appendInt32(b, n)
		}
	}
	return b
}

// wireNetworkTopology is a job's network topology as the session resolved
// it (1.9), nil for none.
func wireNetworkTopology(j *api.JobInfo) *abi.NetworkTopology {
	nt := j.NetworkTopology
	if nt == nil {
		return nil
	}
	out := &abi.NetworkTopology{Mode: string(nt.Mode)}
	if nt.HighestTierAllowed != nil {
		t := int32(*nt.HighestTierAllowed)
		out.HighestTier = &t
	}
	return out
}

// appendJobTopology writes a job's networkTopology and allocatedHyperNode
// (1.9), each left out when absent.
func appendJobTopology(b []byte, j *abi.Job) []byte {
	if nt := j.NetworkTopology; nt != nil {
		b = appendMapLen(appendStr(b, "networkTopology"), 1+countTrue(nt.HighestTier != nil))
		b = appendStr(appendStr(b, "mode"), nt.Mode)
		if nt.HighestTier != nil {
			b = appendInt32Field(b, "highestTier", *nt.HighestTier)
		}
	}
	if j.AllocatedHyperNode != nil {
		b = appendInt32Field(b, "allocatedHyperNode", *j.AllocatedHyperNode)
	}
	return b
}

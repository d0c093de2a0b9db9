package runtime

import (
	"slices"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/gpushare"
)

// The GPU sharing fields of the view (ABI 1.12): what Volcano's deviceshare
// reads of a node's cards and a pod's request, read by the same code the
// native plugin uses, so that a module placing GPU-share pods starts from
// the cards the native plugin would see.

// wireGPUs returns the node's cards, nil for a node without any.
func wireGPUs(n *api.NodeInfo) []abi.GPU {
	g := gpushare.Read(n)
	if g == nil {
		return nil
	}
	out := make([]abi.GPU, 0, len(g.Cards)+len(g.Unhealthy))
	for _, c := range g.Cards {
		out = append(out, abi.GPU{ID: int32(c.ID), Memory: c.Memory, Used: c.UsedMemory(), Holders: int32(c.Holders())})
	}
	// The unhealthy ones in their places, flagged: a node whose cards are
	// all unhealthy still has cards.
	memory := g.Memory()
	for _, id := range g.Unhealthy {
		out = append(out, abi.GPU{ID: int32(id), Memory: memory, Unhealthy: true})
	}
	slices.SortFunc(out, func(a, b abi.GPU) int { return int(a.ID - b.ID) })
	return out
}

// wireTaskGPUs fills the task's GPU request.
func wireTaskGPUs(wt *abi.Task, t *api.TaskInfo) {
	wt.GPUMemory, wt.GPUNumber = gpushare.MemoryOf(t.Pod), gpushare.NumberOf(t.Pod)
}

func appendGPUsField(b []byte, gpus []abi.GPU) []byte {
	if len(gpus) == 0 {
		return b
	}
	b = appendArrayLen(appendStr(b, "gpus"), len(gpus))
	for _, g := range gpus {
		b = appendMapLen(b, 4+countTrue(g.Unhealthy))
		b = appendInt32Field(b, "id", g.ID)
		b = appendInt64(appendStr(b, "memory"), g.Memory)
		b = appendInt64(appendStr(b, "used"), g.Used)
		b = appendInt32Field(b, "holders", g.Holders)
		if g.Unhealthy {
			b = appendBool(appendStr(b, "unhealthy"), true)
		}
	}
	return b
}

func appendTaskGPUs(b []byte, t *abi.Task) []byte {
	if t.GPUMemory != 0 {
		b = appendInt64(appendStr(b, "gpuMemory"), t.GPUMemory)
	}
	if t.GPUNumber != 0 {
		b = appendInt64(appendStr(b, "gpuNumber"), t.GPUNumber)
	}
	return b
}

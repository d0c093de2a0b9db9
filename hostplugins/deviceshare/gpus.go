package deviceshare

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The resources and annotations of Volcano's GPU sharing, as it names them.
const (
	// GPUMemoryResource is a node's GPU memory over all its cards, and a
	// container's share of one card (limits).
	GPUMemoryResource v1.ResourceName = "volcano.sh/gpu-memory"
	// GPUNumberResource is a node's card count, and the whole cards a
	// container asks for (limits).
	GPUNumberResource v1.ResourceName = "volcano.sh/gpu-number"
	// GPUIndexAnnotation is written on a pod at bind: the cards it was
	// given, "0" or "0,2".
	GPUIndexAnnotation = "volcano.sh/gpu-index"
	// PredicateTimeAnnotation is written beside it: when, in Unix
	// nanoseconds.
	PredicateTimeAnnotation = "volcano.sh/predicate-time"
	// UnhealthyGPUsAnnotation on a node lists cards not to use, "1,3".
	UnhealthyGPUsAnnotation = "volcano.sh/gpu-unhealthy-ids"
)

// card is one GPU of a node and the pods on it.
type card struct {
	id     int
	memory int64
	users  map[api.TaskID]user
}

// user is a pod's hold on a card: the memory it uses, none once the pod
// has finished (the cache takes finished pods off their nodes; one the
// session still sees keeps the card from counting as idle, as in Volcano).
type user struct{ memory int64 }

// usedMemory is what the card's pods use.
func (c *card) usedMemory() int64 {
	var sum int64
	for _, u := range c.users {
		sum += u.memory
	}
	return sum
}

// nodeGPUs is a node's cards in ID order.
type nodeGPUs struct {
	node  string
	cards []*card
	byID  map[int]*card
}

// gpusOf reads a node's cards from its capacity (memory split evenly over
// the card count, as Volcano splits it), less the unhealthy ones, and puts
// on them the pods already placed there. A node without both resources has
// no cards (nil): the plugin leaves it to the resource fit.
func gpusOf(n *api.NodeInfo) *nodeGPUs {
	if n.Node == nil {
		return nil
	}
	total, hasMemory := n.Node.Status.Capacity[GPUMemoryResource]
	count, hasCount := n.Node.Status.Capacity[GPUNumberResource]
	if !hasMemory || !hasCount {
		return nil
	}
	if count.Value() <= 0 {
		logonce.Warning(Name, fmt.Sprintf("node %s: %s is %s; it has no GPUs to share", n.Name, GPUNumberResource, count.String()))
		return nil
	}
	perCard := total.Value() / count.Value()
	g := &nodeGPUs{node: n.Name, byID: map[int]*card{}}
	unhealthy := unhealthyIDs(n.Node)
	for id := 0; id < int(count.Value()); id++ {
		if unhealthy[id] {
			continue
		}
		c := &card{id: id, memory: perCard, users: map[api.TaskID]user{}}
		g.cards = append(g.cards, c)
		g.byID[id] = c
	}
	for _, t := range n.Tasks {
		memory, number := gpuMemoryOf(t.Pod), gpuNumberOf(t.Pod)
		if memory <= 0 && number <= 0 {
			continue
		}
		u := user{memory: memory}
		if p := t.Pod.Status.Phase; p == v1.PodSucceeded || p == v1.PodFailed {
			u.memory = 0
		}
		for _, id := range gpuIndexOf(t.Pod) {
			if c := g.byID[id]; c != nil {
				c.users[t.UID] = u
			}
		}
	}
	return g
}

// unhealthyIDs reads the node's unhealthy cards; an entry that is not a
// number is skipped with a warning, as Volcano skips it.
func unhealthyIDs(node *v1.Node) map[int]bool {
	v, ok := node.Annotations[UnhealthyGPUsAnnotation]
	if !ok {
		return nil
	}
	out := map[int]bool{}
	for _, s := range strings.Split(v, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			logonce.Warning(Name, fmt.Sprintf("node %s: %s=%q: %q is not a card number; it is ignored", node.Name, UnhealthyGPUsAnnotation, v, s))
			continue
		}
		out[id] = true
	}
	return out
}

// gpuIndexOf reads the cards a placed pod was given; a malformed value
// gives none, with a warning, as in Volcano.
func gpuIndexOf(pod *v1.Pod) []int {
	v, ok := pod.Annotations[GPUIndexAnnotation]
	if !ok {
		return nil
	}
	var ids []int
	for _, s := range strings.Split(v, ",") {
		id, err := strconv.Atoi(s)
		if err != nil {
			logonce.Warning(Name, fmt.Sprintf("pod %s/%s: %s=%q is not a list of card numbers; its cards are not counted", pod.Namespace, pod.Name, GPUIndexAnnotation, v))
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// gpuMemoryOf and gpuNumberOf are what a pod asks for in its containers'
// limits: their sum, or the largest init container's when that is more.
func gpuMemoryOf(pod *v1.Pod) int64 { return podLimit(pod, GPUMemoryResource) }
func gpuNumberOf(pod *v1.Pod) int64 { return podLimit(pod, GPUNumberResource) }

func podLimit(pod *v1.Pod, name v1.ResourceName) int64 {
	var sum, initMax int64
	for _, c := range pod.Spec.Containers {
		if q, ok := c.Resources.Limits[name]; ok {
			sum += q.Value()
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if q, ok := c.Resources.Limits[name]; ok && q.Value() > initMax {
			initMax = q.Value()
		}
	}
	return max(sum, initMax)
}

// fitByMemory is the first card, by ID, with memory free for the pod.
func (g *nodeGPUs) fitByMemory(memory int64) (int, bool) {
	for _, c := range g.cards {
		if c.memory-c.usedMemory() >= memory {
			return c.id, true
		}
	}
	return 0, false
}

// fitByNumber is the first n idle cards by ID.
func (g *nodeGPUs) fitByNumber(n int64) ([]int, bool) {
	var ids []int
	for _, c := range g.cards {
		if int64(len(ids)) == n {
			break
		}
		if len(c.users) == 0 {
			ids = append(ids, c.id)
		}
	}
	return ids, int64(len(ids)) == n
}

func (g *nodeGPUs) take(uid api.TaskID, ids []int, memory int64) {
	for _, id := range ids {
		g.byID[id].users[uid] = user{memory: memory}
	}
}

func (g *nodeGPUs) give(uid api.TaskID, ids []int) {
	for _, id := range ids {
		delete(g.byID[id].users, uid)
	}
}

// indexValue writes card IDs as the annotation holds them.
func indexValue(ids []int) string {
	s := make([]string, len(ids))
	sorted := append([]int(nil), ids...)
	sort.Ints(sorted)
	for i, id := range sorted {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

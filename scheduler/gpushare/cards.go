// Package gpushare reads Volcano's GPU sharing devices: a node's cards from
// its capacity and annotations, the cards its pods hold, and what a pod asks
// for. The native deviceshare plugin places pods on them; the Wasm view
// carries them so that a module can (docs/abi.md, Node.gpus).
package gpushare

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// logName is the plugin the warnings are logged under.
const logName = "deviceshare"

// The resources and annotations of Volcano's GPU sharing, as it names them.
const (
	// MemoryResource is a node's GPU memory over all its cards, and a
	// container's share of one Card (limits).
	MemoryResource v1.ResourceName = "volcano.sh/gpu-memory"
	// NumberResource is a node's card count, and the whole cards a
	// container asks for (limits).
	NumberResource v1.ResourceName = "volcano.sh/gpu-number"
	// IndexAnnotation is written on a pod at bind: the cards it was
	// given, "0" or "0,2".
	IndexAnnotation = "volcano.sh/gpu-index"
	// PredicateTimeAnnotation is written beside it: when, in Unix
	// nanoseconds.
	PredicateTimeAnnotation = "volcano.sh/predicate-time"
	// UnhealthyAnnotation on a node lists cards not to use, "1,3".
	UnhealthyAnnotation = "volcano.sh/gpu-unhealthy-ids"
)

// Card is one GPU of a node and the pods on it.
type Card struct {
	ID     int
	Memory int64
	users  map[api.TaskID]user
}

// user is a pod's hold on a Card: the memory it uses, none once the pod
// has finished (the cache takes finished pods off their nodes; one the
// session still sees keeps the Card from counting as idle, as in Volcano).
type user struct{ memory int64 }

// UsedMemory is what the Card's pods use.
func (c *Card) UsedMemory() int64 {
	var sum int64
	for _, u := range c.users {
		sum += u.memory
	}
	return sum
}

// Holders counts the pods holding the card: a card without any is idle.
func (c *Card) Holders() int { return len(c.users) }

// Node is a node's cards in ID order.
type Node struct {
	Name  string
	Cards []*Card
	// Unhealthy are the cards the node's annotation lists, in ID order:
	// not among Cards, but the node still has cards (a pod asking for one
	// fails there rather than passing as on a node without any).
	Unhealthy []int
	byID      map[int]*Card
	perCard   int64
}

// Memory is each card's memory, the unhealthy ones' too.
func (g *Node) Memory() int64 { return g.perCard }

// Read reads a node's cards from its capacity (memory split evenly over
// the card count, as Volcano splits it), less the unhealthy ones, and puts
// on them the pods already placed there. A node without both resources has
// no cards (nil): deviceshare leaves it to the resource fit.
func Read(n *api.NodeInfo) *Node {
	if n.Node == nil {
		return nil
	}
	total, hasMemory := n.Node.Status.Capacity[MemoryResource]
	count, hasCount := n.Node.Status.Capacity[NumberResource]
	if !hasMemory || !hasCount {
		return nil
	}
	if count.Value() <= 0 {
		logonce.Warning(logName, fmt.Sprintf("node %s: %s is %s; it has no GPUs to share", n.Name, NumberResource, count.String()))
		return nil
	}
	perCard := total.Value() / count.Value()
	g := &Node{Name: n.Name, byID: map[int]*Card{}, perCard: perCard}
	unhealthy := unhealthyIDs(n.Node)
	for id := 0; id < int(count.Value()); id++ {
		if unhealthy[id] {
			g.Unhealthy = append(g.Unhealthy, id)
			continue
		}
		c := &Card{ID: id, Memory: perCard, users: map[api.TaskID]user{}}
		g.Cards = append(g.Cards, c)
		g.byID[id] = c
	}
	for _, t := range n.Tasks {
		memory, number := MemoryOf(t.Pod), NumberOf(t.Pod)
		if memory <= 0 && number <= 0 {
			continue
		}
		u := user{memory: memory}
		if p := t.Pod.Status.Phase; p == v1.PodSucceeded || p == v1.PodFailed {
			u.memory = 0
		}
		for _, id := range taskIndex(t) {
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
	v, ok := node.Annotations[UnhealthyAnnotation]
	if !ok {
		return nil
	}
	out := map[int]bool{}
	for _, s := range strings.Split(v, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			logonce.Warning(logName, fmt.Sprintf("node %s: %s=%q: %q is not a card number; it is ignored", node.Name, UnhealthyAnnotation, v, s))
			continue
		}
		out[id] = true
	}
	return out
}

// taskIndex reads the cards a task holds: those a placement of this session
// will name at its bind, else its pod's.
func taskIndex(t *api.TaskInfo) []int {
	if v, ok := t.BindAnnotations[IndexAnnotation]; ok {
		return parseIndex(t.Pod, v)
	}
	return IndexOf(t.Pod)
}

// IndexOf reads the cards a placed pod was given; a malformed value
// gives none, with a warning, as in Volcano.
func IndexOf(pod *v1.Pod) []int {
	v, ok := pod.Annotations[IndexAnnotation]
	if !ok {
		return nil
	}
	return parseIndex(pod, v)
}

func parseIndex(pod *v1.Pod, v string) []int {
	var ids []int
	for _, s := range strings.Split(v, ",") {
		id, err := strconv.Atoi(s)
		if err != nil {
			logonce.Warning(logName, fmt.Sprintf("pod %s/%s: %s=%q is not a list of card numbers; its cards are not counted", pod.Namespace, pod.Name, IndexAnnotation, v))
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// MemoryOf and NumberOf are what a pod asks for in its containers'
// limits: their sum, or the largest init container's when that is more.
func MemoryOf(pod *v1.Pod) int64 { return PodLimit(pod, MemoryResource) }
func NumberOf(pod *v1.Pod) int64 { return PodLimit(pod, NumberResource) }

func PodLimit(pod *v1.Pod, name v1.ResourceName) int64 {
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

// FitByMemory is the first Card, by ID, with memory free for the pod.
func (g *Node) FitByMemory(memory int64) (int, bool) {
	for _, c := range g.Cards {
		if c.Memory-c.UsedMemory() >= memory {
			return c.ID, true
		}
	}
	return 0, false
}

// FitByNumber is the first n idle cards by ID.
func (g *Node) FitByNumber(n int64) ([]int, bool) {
	var ids []int
	for _, c := range g.Cards {
		if int64(len(ids)) == n {
			break
		}
		if len(c.users) == 0 {
			ids = append(ids, c.ID)
		}
	}
	return ids, int64(len(ids)) == n
}

func (g *Node) Take(uid api.TaskID, ids []int, memory int64) {
	for _, id := range ids {
		g.byID[id].users[uid] = user{memory: memory}
	}
}

func (g *Node) Give(uid api.TaskID, ids []int) {
	for _, id := range ids {
		delete(g.byID[id].users, uid)
	}
}

// IndexValue writes Card IDs as the annotation holds them.
func IndexValue(ids []int) string {
	s := make([]string, len(ids))
	sorted := append([]int(nil), ids...)
	sort.Ints(sorted)
	for i, id := range sorted {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

// Command deviceshare is the Wasm port of Caldera's native deviceshare
// plugin (Volcano's deviceshare with GPU sharing or GPU numbers): pods ask
// for a share of one card's memory (volcano.sh/gpu-memory) or for whole
// cards (volcano.sh/gpu-number), and the cards they get are named on the
// pod at bind (volcano.sh/gpu-index). It reads the cards and requests from
// the view and names the cards through allocate (ABI 1.12).
//
// Each session starts from the nodes' cards as the view carries them; a
// placement takes the first card by ID with the pod's memory free
// (sharing) or the first idle cards (numbers), and a deallocation gives
// them back. A node without cards passes: the resource fit turns away a pod
// asking for what the node lacks.
package main

import (
	"errors"
	"strconv"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&deviceshare{}) }

// The annotations written at bind, as Volcano names them.
const (
	indexAnnotation = "volcano.sh/gpu-index"
	timeAnnotation  = "volcano.sh/predicate-time"
)

// Argument keys, as Volcano names them.
const (
	sharingKey    = "deviceshare.GPUSharingEnable"
	numberKey     = "deviceshare.GPUNumberEnable"
	policyKey     = "deviceshare.SchedulePolicy"
	weightKey     = "deviceshare.ScheduleWeight"
	geometriesKey = "deviceshare.KnownGeometriesCMName"
	geometriesNS  = "deviceshare.KnownGeometriesCMNamespace"
	exclusiveKey  = "deviceshare.GPUExclusiveRules"
)

// notImplemented are the device kinds the scheduler does not implement,
// refused when switched on, as the native plugin refuses them.
var notImplemented = []struct{ key, what string }{
	{"deviceshare.NodeLockEnable", "the node lock the GPU device plugin reads"},
	{"deviceshare.VGPUEnable", "vGPU sharing (HAMi)"},
	{"deviceshare.AscendMindClusterVNPUEnable", "Ascend 310P vNPU (MindCluster)"},
	{"deviceshare.AscendHAMiVNPUEnable", "Ascend vNPU (HAMi)"},
}

// card is one GPU of a node during the session: the pods the view counted
// on it that are not tasks of the view (others, with their memory), and
// each task's hold by task handle, as the native plugin keeps its users by
// pod, so that a task placed again where it already holds the card is
// counted once. An unhealthy card takes nothing.
type card struct {
	id         int32
	memory     int64
	others     int32
	othersUsed int64
	holds      map[int32]int64
	unhealthy  bool
}

func (c *card) used() int64 {
	u := c.othersUsed
	for _, m := range c.holds {
		u += m
	}
	return u
}

func (c *card) idle() bool { return c.others == 0 && len(c.holds) == 0 }

// grant is what a placement took: the node's handle and the cards.
type grant struct {
	node int32
	ids  []int32
}

type deviceshare struct {
	sharing, number bool
	// cards holds each node's cards by node handle, nil for none.
	cards [][]card
	// given holds each task's grant of this session by task handle.
	given map[int32]grant
	ids   []int32
}

func (*deviceshare) Name() string { return "deviceshare" }

// DeclaredArguments lists what OnSessionOpen reads.
func (*deviceshare) DeclaredArguments() []caldera.ArgumentSpec {
	out := []caldera.ArgumentSpec{
		{Name: sharingKey, Type: caldera.ArgBool, Default: false},
		{Name: numberKey, Type: caldera.ArgBool, Default: false},
	}
	for _, n := range notImplemented {
		out = append(out, caldera.ArgumentSpec{Name: n.key, Type: caldera.ArgBool, Default: false})
	}
	return append(out,
		caldera.ArgumentSpec{Name: policyKey, Type: caldera.ArgString, Default: ""},
		caldera.ArgumentSpec{Name: weightKey, Type: caldera.ArgInt, Default: int64(0)},
		caldera.ArgumentSpec{Name: geometriesKey, Type: caldera.ArgString, Default: ""},
		caldera.ArgumentSpec{Name: geometriesNS, Type: caldera.ArgString, Default: ""})
}

// OnSessionOpen reads the arguments, refusing what the native plugin
// refuses, and every node's cards with the holds of the view's tasks.
func (d *deviceshare) OnSessionOpen(s *caldera.Session) error {
	if err := d.readArguments(s); err != nil {
		return errors.New("deviceshare: " + err.Error())
	}
	v := &s.View
	d.cards = d.cards[:0]
	for i := range v.Nodes {
		var cs []card
		for _, g := range v.Nodes[i].GPUs {
			cs = append(cs, card{id: g.ID, memory: g.Memory, others: g.Holders, othersUsed: g.Used, holds: map[int32]int64{}, unhealthy: g.Unhealthy})
		}
		d.cards = append(d.cards, cs)
	}
	d.given = map[int32]grant{}
	for i := range v.Tasks {
		d.claim(&v.Tasks[i])
	}
	return nil
}

// claim moves a task's hold, which the view counted among a card's pods,
// to the task: the cards its volcano.sh/gpu-index names. A task this
// session placed (a session opened again on a fresh instance after a
// failure) keeps it as a grant, given back if the task leaves its node.
func (d *deviceshare) claim(t *caldera.Task) {
	if t.Node < 0 || t.GPUMemory <= 0 && t.GPUNumber <= 0 || t.Status == caldera.Succeeded || t.Status == caldera.Failed {
		return
	}
	ids, ok := indexOf(t.Annotations[indexAnnotation])
	if !ok {
		return
	}
	var held []int32
	for _, id := range ids {
		c := cardOf(d.cards[t.Node], id)
		if c == nil || c.unhealthy {
			continue
		}
		if _, dup := c.holds[t.Handle]; dup || c.others < 1 {
			continue
		}
		c.others--
		c.othersUsed -= t.GPUMemory
		c.holds[t.Handle] = t.GPUMemory
		held = append(held, id)
	}
	if len(held) > 0 && (t.Status == caldera.Allocated || t.Status == caldera.Pipelined) {
		d.given[t.Handle] = grant{node: t.Node, ids: held}
	}
}

// indexOf reads a volcano.sh/gpu-index value as the native plugin does: a
// value with anything but numbers between its commas names no card.
func indexOf(v string) ([]int32, bool) {
	if v == "" {
		return nil, false
	}
	var ids []int32
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		ids = append(ids, int32(n))
	}
	return ids, true
}

func (d *deviceshare) readArguments(s *caldera.Session) error {
	var err error
	if d.sharing, err = s.Bool(sharingKey, false); err != nil {
		return err
	}
	if d.number, err = s.Bool(numberKey, false); err != nil {
		return err
	}
	if d.sharing && d.number {
		return errors.New(sharingKey + " and " + numberKey + " cannot both be true")
	}
	known := map[string]bool{sharingKey: true, numberKey: true, policyKey: true, weightKey: true, geometriesKey: true, geometriesNS: true, exclusiveKey: true}
	for _, n := range notImplemented {
		known[n.key] = true
		on, err := s.Bool(n.key, false)
		if err != nil {
			return err
		}
		if on {
			return errors.New(n.key + ": " + n.what + " is not implemented in Caldera")
		}
	}
	if _, ok := s.Arguments[exclusiveKey]; ok {
		return errors.New(exclusiveKey + ": exclusive vGPU rules are not implemented in Caldera")
	}
	// The policy and weight score vGPU and vNPU devices only: GPU sharing
	// and numbers score 0 whatever they say.
	policy, err := s.String(policyKey, "")
	if err != nil {
		return err
	}
	if policy != "" && policy != "binpack" && policy != "spread" {
		return errors.New("argument \"" + policyKey + "\": \"" + policy + "\" is neither binpack nor spread")
	}
	if _, err := s.Int(weightKey, 0); err != nil {
		return err
	}
	for _, k := range []string{geometriesKey, geometriesNS} {
		if _, err := s.String(k, ""); err != nil {
			return err
		}
	}
	for k := range s.Arguments {
		// wasm.* are the scheduler's, for the module's limits and image.
		if !known[k] && !strings.HasPrefix(k, "wasm.") {
			return errors.New("unknown argument \"" + k + "\"")
		}
	}
	return nil
}

// requests says what the task asks of the enabled kind.
func (d *deviceshare) requests(t *caldera.Task) (memory, number int64) {
	if d.sharing {
		memory = t.GPUMemory
	}
	if d.number {
		number = t.GPUNumber
	}
	return memory, number
}

// PredicateBatch fails the nodes whose cards cannot hold the task's request.
func (d *deviceshare) PredicateBatch(_ *caldera.Session, task *caldera.Task, nodes []*caldera.Node, verdicts []caldera.Verdict) {
	memory, number := d.requests(task)
	if memory <= 0 && number <= 0 {
		return
	}
	for i, n := range nodes {
		cs := d.cards[n.Handle]
		if cs == nil {
			continue
		}
		if memory > 0 {
			if _, ok := fitByMemory(cs, memory); !ok {
				verdicts[i] = caldera.Verdict{Code: caldera.Unschedulable, Reason: "GpuShare no enough gpu memory on node " + n.Name}
				continue
			}
		}
		if number > 0 && !fitByNumber(cs, number, &d.ids) {
			verdicts[i] = caldera.Verdict{Code: caldera.Unschedulable, Reason: "GpuNumber no enough gpu number on node " + n.Name}
		}
	}
}

// Allocate gives the placed task its cards and names them for its bind; it
// refuses the placement when they no longer fit (another placement took
// them since the predicate).
func (d *deviceshare) Allocate(s *caldera.Session, task *caldera.Task, p *caldera.Placement) string {
	memory, number := d.requests(task)
	if task.Node < 0 || memory <= 0 && number <= 0 {
		return ""
	}
	cs := d.cards[task.Node]
	if cs == nil {
		return ""
	}
	if _, done := d.given[task.Handle]; done {
		return ""
	}
	node := s.View.Nodes[task.Node].Name
	var ids []int32
	if memory > 0 {
		i, ok := fitByMemory(cs, memory)
		if !ok {
			return "deviceshare: no GPU on node " + node + " has " + itoa(memory) + " of volcano.sh/gpu-memory free for pod " + task.Namespace + "/" + task.Name
		}
		ids = []int32{cs[i].id}
	} else {
		if !fitByNumber(cs, number, &d.ids) {
			return "deviceshare: node " + node + " has fewer than " + itoa(number) + " idle GPUs for pod " + task.Namespace + "/" + task.Name
		}
		ids = append([]int32(nil), d.ids...)
	}
	g := grant{node: task.Node, ids: ids}
	d.take(g, task)
	d.given[task.Handle] = g
	p.Annotate(timeAnnotation, itoa(p.Now))
	p.Annotate(indexAnnotation, indexValue(ids))
	return ""
}

// OnAllocate: the cards are given in Allocate, which every placement asks.
func (*deviceshare) OnAllocate(*caldera.Session, *caldera.Task) {}

// OnDeallocate gives back the cards the task was given this session.
func (d *deviceshare) OnDeallocate(_ *caldera.Session, task *caldera.Task) {
	g, ok := d.given[task.Handle]
	if !ok {
		return
	}
	delete(d.given, task.Handle)
	for _, id := range g.ids {
		if c := cardOf(d.cards[g.node], id); c != nil {
			delete(c.holds, task.Handle)
		}
	}
}

// take gives the task its cards: its hold on each, replacing one it had.
func (d *deviceshare) take(g grant, task *caldera.Task) {
	for _, id := range g.ids {
		if c := cardOf(d.cards[g.node], id); c != nil {
			c.holds[task.Handle] = task.GPUMemory
		}
	}
}

// cardOf finds a node's card by ID; nil for none (a number past the
// node's cards).
func cardOf(cs []card, id int32) *card {
	for i := range cs {
		if cs[i].id == id {
			return &cs[i]
		}
	}
	return nil
}

// fitByMemory is the first card, by ID, with memory free for the request.
func fitByMemory(cs []card, memory int64) (int, bool) {
	for i := range cs {
		if !cs[i].unhealthy && cs[i].memory-cs[i].used() >= memory {
			return i, true
		}
	}
	return 0, false
}

// fitByNumber finds the first n idle cards by ID, into ids.
func fitByNumber(cs []card, n int64, ids *[]int32) bool {
	*ids = (*ids)[:0]
	for i := range cs {
		if int64(len(*ids)) == n {
			break
		}
		if !cs[i].unhealthy && cs[i].idle() {
			*ids = append(*ids, cs[i].id)
		}
	}
	return int64(len(*ids)) == n
}

// indexValue writes card IDs as the annotation holds them, ascending.
func indexValue(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = itoa(int64(id))
	}
	return strings.Join(s, ",")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

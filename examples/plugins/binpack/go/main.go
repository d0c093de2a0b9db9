// Command binpack is the Wasm port of Caldera's native binpack plugin
// (Volcano's binpack): it scores a node higher the fuller it would be with
// the task on it, per resource weighted by binpack.cpu, binpack.memory and
// binpack.resources, times binpack.weight.
package main

import (
	"errors"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&binpack{}) }

const maxNodeScore = 100

type binpack struct {
	weight, cpu, memory int64
	scalars             caldera.Scalars
}

func (*binpack) Name() string { return "binpack" }

// weightArgs are binpack's weights with Volcano's defaults: OnSessionOpen
// reads them and DeclaredArguments declares them from this one table. A
// negative cpu or memory weight counts as the default, as in Volcano.
var weightArgs = [...]struct {
	name     string
	def      int64
	positive bool
	field    func(*binpack) *int64
}{
	{"binpack.weight", 1, false, func(b *binpack) *int64 { return &b.weight }},
	{"binpack.cpu", 1, true, func(b *binpack) *int64 { return &b.cpu }},
	{"binpack.memory", 1, true, func(b *binpack) *int64 { return &b.memory }},
}

// Other resources: resourcesArg lists them, comma-separated, and
// resourceWeightArg+name weighs each (negative counts as the default).
const (
	resourcesArg          = "binpack.resources"
	resourceWeightArg     = "binpack.resources."
	resourceWeightDefault = 1
)

// DeclaredArguments lists what OnSessionOpen reads.
func (*binpack) DeclaredArguments() []caldera.ArgumentSpec {
	out := make([]caldera.ArgumentSpec, 0, len(weightArgs)+2)
	for _, a := range weightArgs {
		out = append(out, caldera.ArgumentSpec{Name: a.name, Type: caldera.ArgInt, Default: a.def})
	}
	return append(out,
		caldera.ArgumentSpec{Name: resourcesArg, Type: caldera.ArgString, Default: ""},
		caldera.ArgumentSpec{Name: resourceWeightArg + "<name>", Type: caldera.ArgInt, Default: int64(resourceWeightDefault)})
}

// OnSessionOpen reads the arguments with Volcano's defaults.
func (b *binpack) OnSessionOpen(s *caldera.Session) error {
	for _, a := range weightArgs {
		w, err := s.Int(a.name, a.def)
		if err != nil {
			return err
		}
		if a.positive && w < 0 {
			w = a.def
		}
		*a.field(b) = w
	}
	b.scalars = nil
	list, _ := s.Arguments[resourcesArg].(string)
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" || name == "cpu" || name == "memory" {
			continue
		}
		w, err := s.Int(resourceWeightArg+name, resourceWeightDefault)
		if err != nil {
			return errors.New("binpack: " + err.Error())
		}
		if w < 0 {
			w = resourceWeightDefault
		}
		b.scalars.Set(name, w)
	}
	return nil
}

// NodeOrderBatch scores every candidate node.
func (b *binpack) NodeOrderBatch(_ *caldera.Session, task *caldera.Task, nodes []*caldera.Node, scores []float64) error {
	if b.weight == 0 {
		return nil
	}
	for i, n := range nodes {
		scores[i] = b.score(&task.Request, n)
	}
	return nil
}

// score is Volcano's BinPackingScore. It allocates nothing: it runs once
// per candidate node, and garbage here means collections that scan the
// whole session view.
func (b *binpack) score(req *caldera.Resource, n *caldera.Node) float64 {
	var acc accumulator
	if req.MilliCPU > 0 && !acc.add(req.MilliCPU, n.Allocatable.MilliCPU, n.Used.MilliCPU, b.cpu) {
		return 0
	}
	if req.Memory > 0 && !acc.add(req.Memory, n.Allocatable.Memory, n.Used.Memory, b.memory) {
		return 0
	}
	if len(b.scalars) > 0 {
		for _, sc := range req.Scalars {
			name, q := sc.Name, sc.Value
			w, ok := b.scalars.Lookup(name)
			if q <= 0 || !ok {
				continue
			}
			if !acc.add(q, n.Allocatable.Scalar(name), n.Used.Scalar(name), w) {
				return 0
			}
		}
	}
	sum := acc.sum
	if acc.weights > 0 {
		sum /= float64(acc.weights)
	}
	return sum * float64(maxNodeScore*b.weight)
}

// accumulator sums the weighted fullness of each resource dimension.
type accumulator struct {
	sum     float64
	weights int64
}

// add adds one dimension and reports false when the request would not fit.
func (a *accumulator) add(request, capacity, used, weight int64) bool {
	a.weights += weight
	if capacity == 0 || weight == 0 {
		return true
	}
	after := float64(request) + float64(used)
	if after > float64(capacity) {
		return false
	}
	a.sum += after * float64(weight) / float64(capacity)
	return true
}

package resourcestrategyfit

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument keys, as Volcano names them.
const (
	WeightKey       = "resourceStrategyFitWeight"
	ResourcesKey    = "resources"
	SraKey          = "sra"
	ProportionalKey = "proportional"
)

// The scoring strategies of kube-scheduler's NodeResourcesFit.
const (
	LeastAllocated = "LeastAllocated"
	MostAllocated  = "MostAllocated"
)

// strategy scores one resource.
type strategy struct {
	kind   string
	weight int
}

// args are the plugin's parsed arguments with Volcano's defaults.
type args struct {
	// weight scales the strategy score (10; a negative one counts as 10).
	weight int
	// exact holds the strategies of named resources; wildcards those of
	// patterns ending in one "*", by their prefix.
	exact     map[v1.ResourceName]strategy
	wildcards map[string]strategy
	sra       sra
	// proportional maps a scarce resource to the CPU and memory to keep
	// idle per unit of it; nil when the policy is off.
	proportional map[v1.ResourceName]rates
}

// sra is scarce resource avoidance: nodes without the listed resources
// score higher for tasks that do not need them.
type sra struct {
	weight    int
	resources map[v1.ResourceName]int
	weightSum int
}

type rates struct{ cpu, memory float64 }

func parseArgs(a framework.Arguments) (args, error) {
	out := args{weight: 10}
	if err := a.Int(WeightKey, &out.weight); err != nil {
		return out, err
	}
	if out.weight < 0 {
		out.weight = 10
	}
	var err error
	if out.exact, out.wildcards, err = parseResources(a); err != nil {
		return out, err
	}
	if out.sra, err = parseSra(a); err != nil {
		return out, err
	}
	if out.proportional, err = parseProportional(a); err != nil {
		return out, err
	}
	if unknown := a.Unknown(WeightKey, ResourcesKey, SraKey, ProportionalKey); len(unknown) > 0 {
		return out, fmt.Errorf("unknown arguments %q", unknown)
	}
	return out, nil
}

// nested returns the mapping under key with its keys prefixed by key and a
// dot, so that errors name the whole path; nil when absent.
func nested(a framework.Arguments, key string) (framework.Arguments, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("argument %q: expected a mapping, got %T %v", key, v, v)
	}
	out := framework.Arguments{}
	for k, x := range m {
		out[key+"."+k] = x
	}
	return out, nil
}

// parseResources reads resources: {name: {type, weight}}. Absent or empty
// means cpu and memory, LeastAllocated, weight 1. A weight of 0 or less
// counts as 1, as in Volcano. A name may end in one "*" to match every
// resource with that prefix; Volcano ignores other wildcards (with a
// warning) and Caldera refuses them, as it refuses a type other than
// LeastAllocated and MostAllocated, which Volcano would read as
// LeastAllocated.
func parseResources(a framework.Arguments) (map[v1.ResourceName]strategy, map[string]strategy, error) {
	exact, wildcards := map[v1.ResourceName]strategy{}, map[string]strategy{}
	res, err := nested(a, ResourcesKey)
	if err != nil {
		return nil, nil, err
	}
	if len(res) == 0 {
		exact[v1.ResourceCPU] = strategy{LeastAllocated, 1}
		exact[v1.ResourceMemory] = strategy{LeastAllocated, 1}
		return exact, wildcards, nil
	}
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		name := strings.TrimPrefix(key, ResourcesKey+".")
		s, err := nested(res, key)
		if err != nil {
			return nil, nil, err
		}
		st := strategy{kind: LeastAllocated, weight: 1}
		if err := s.String(key+".type", &st.kind); err != nil {
			return nil, nil, err
		}
		if st.kind != LeastAllocated && st.kind != MostAllocated {
			return nil, nil, fmt.Errorf("argument %q: expected %s or %s, got %q", key+".type", LeastAllocated, MostAllocated, st.kind)
		}
		if err := s.Int(key+".weight", &st.weight); err != nil {
			return nil, nil, err
		}
		if st.weight <= 0 {
			st.weight = 1
		}
		if unknown := s.Unknown(key+".type", key+".weight"); len(unknown) > 0 {
			return nil, nil, fmt.Errorf("unknown arguments %q", unknown)
		}
		if !strings.Contains(name, "*") {
			exact[v1.ResourceName(name)] = st
			continue
		}
		if name == "*" || !strings.HasSuffix(name, "*") || strings.Count(name, "*") != 1 {
			return nil, nil, fmt.Errorf("argument %q: a resource pattern ends in its only \"*\" and has a prefix (such as vendor.com/*)", key)
		}
		wildcards[strings.TrimSuffix(name, "*")] = st
	}
	return exact, wildcards, nil
}

// parseSra reads sra: {enable, resources: "a,b", weight, resourceWeight:
// {name: weight}}. Off unless enabled; its weight is 0 unless given (so it
// scores nothing), a resource's weight 1 unless given, a negative one 1.
func parseSra(a framework.Arguments) (sra, error) {
	out := sra{resources: map[v1.ResourceName]int{}}
	s, err := nested(a, SraKey)
	if err != nil || s == nil {
		return out, err
	}
	enable, list := false, ""
	for _, err := range []error{s.Bool(SraKey+".enable", &enable), s.String(SraKey+".resources", &list), s.Int(SraKey+".weight", &out.weight)} {
		if err != nil {
			return out, err
		}
	}
	weights, err := nested(s, SraKey+".resourceWeight")
	if err != nil {
		return out, err
	}
	if unknown := s.Unknown(SraKey+".enable", SraKey+".resources", SraKey+".weight", SraKey+".resourceWeight"); len(unknown) > 0 {
		return out, fmt.Errorf("unknown arguments %q", unknown)
	}
	if !enable {
		return sra{}, nil
	}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		w := 1
		if err := weights.Int(SraKey+".resourceWeight."+name, &w); err != nil {
			return out, err
		}
		if w < 0 {
			w = 1
		}
		out.resources[v1.ResourceName(name)] = w
		out.weightSum += w
	}
	return out, nil
}

// parseProportional reads proportional: {enable, resources: "a,b",
// resourceProportion: {"a.cpu": rate, "a.memory": rate}}; a rate is 1
// unless given, a negative one 1.
func parseProportional(a framework.Arguments) (map[v1.ResourceName]rates, error) {
	p, err := nested(a, ProportionalKey)
	if err != nil || p == nil {
		return nil, err
	}
	enable, list := false, ""
	for _, err := range []error{p.Bool(ProportionalKey+".enable", &enable), p.String(ProportionalKey+".resources", &list)} {
		if err != nil {
			return nil, err
		}
	}
	props, err := nested(p, ProportionalKey+".resourceProportion")
	if err != nil {
		return nil, err
	}
	if unknown := p.Unknown(ProportionalKey+".enable", ProportionalKey+".resources", ProportionalKey+".resourceProportion"); len(unknown) > 0 {
		return nil, fmt.Errorf("unknown arguments %q", unknown)
	}
	if !enable {
		return nil, nil
	}
	out := map[v1.ResourceName]rates{}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		r := rates{cpu: 1, memory: 1}
		prefix := ProportionalKey + ".resourceProportion." + name
		if err := props.Float64(prefix+".cpu", &r.cpu); err != nil {
			return nil, err
		}
		if err := props.Float64(prefix+".memory", &r.memory); err != nil {
			return nil, err
		}
		if r.cpu < 0 {
			r.cpu = 1
		}
		if r.memory < 0 {
			r.memory = 1
		}
		out[v1.ResourceName(name)] = r
	}
	return out, nil
}

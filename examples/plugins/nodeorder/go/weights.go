package main

import (
	"errors"
	"math"
	"strconv"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// weights are the native plugin's arguments with Volcano's defaults. A
// weight of 0 turns a strategy off; negative weights are applied as given.
type weights struct {
	leastRequested, mostRequested, balancedResource, nodeAffinity, taintToleration, imageLocality int64
	podAffinity, podTopologySpread                                                                int64
	// hardPodAffinity is what an existing pod's required affinity term
	// that selects the task adds to its podaffinity score (0..100).
	hardPodAffinity int64
}

// weightTable lists every weight with Volcano's defaults
// (hostplugins/nodeorder): parseWeights reads it and DeclaredArguments
// declares it.
var weightTable = [...]struct {
	key   string
	def   int64
	field func(*weights) *int64
}{
	{"leastrequested.weight", 1, func(w *weights) *int64 { return &w.leastRequested }},
	{"mostrequested.weight", 0, func(w *weights) *int64 { return &w.mostRequested }},
	{"balancedresource.weight", 1, func(w *weights) *int64 { return &w.balancedResource }},
	{"nodeaffinity.weight", 2, func(w *weights) *int64 { return &w.nodeAffinity }},
	{"tainttoleration.weight", 3, func(w *weights) *int64 { return &w.taintToleration }},
	{"podaffinity.weight", 2, func(w *weights) *int64 { return &w.podAffinity }},
	{"podtopologyspread.weight", 2, func(w *weights) *int64 { return &w.podTopologySpread }},
	{"imagelocality.weight", 1, func(w *weights) *int64 { return &w.imageLocality }},
	{hardPodAffinityKey, 1, func(w *weights) *int64 { return &w.hardPodAffinity }},
}

// hardPodAffinityKey is Caldera's own argument: kube-scheduler's
// InterPodAffinityArgs.hardPodAffinityWeight.
const hardPodAffinityKey = "podaffinity.hardPodAffinityWeight"

func parseWeights(m map[string]any) (weights, error) {
	var w weights
	for _, f := range weightTable {
		dst := f.field(&w)
		*dst = f.def
		if err := readInt(m, f.key, dst); err != nil {
			return w, err
		}
	}
	if w.hardPodAffinity < 0 || w.hardPodAffinity > 100 {
		return w, errors.New("argument " + hardPodAffinityKey + ": " + strconv.FormatInt(w.hardPodAffinity, 10) + " is not in the range 0-100")
	}
	return w, nil
}

// DeclaredArguments lists what parseWeights reads.
func (*plugin) DeclaredArguments() []caldera.ArgumentSpec {
	out := make([]caldera.ArgumentSpec, len(weightTable))
	for i, f := range weightTable {
		out[i] = caldera.ArgumentSpec{Name: f.key, Type: caldera.ArgInt, Default: f.def}
	}
	return out
}

// readInt reads an integer as the scheduler's framework.Arguments.Int does:
// an integer, a whole-number float or a numeric string; absent or nil keeps
// dst.
func readInt(m map[string]any, key string, dst *int64) error {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case int64:
		*dst = x
		return nil
	case uint64:
		*dst = int64(x)
		return nil
	case float64:
		if x == math.Trunc(x) {
			*dst = int64(x)
			return nil
		}
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			*dst = int64(n)
			return nil
		}
	}
	return caldera.ArgumentError(key, "an integer", v)
}

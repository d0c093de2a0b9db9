package main

import (
	"fmt"
	"math"
	"strconv"
)

// weights are the native plugin's arguments with Volcano's defaults. A
// weight of 0 turns a strategy off; negative weights are applied as given.
type weights struct {
	leastRequested, mostRequested, balancedResource, nodeAffinity, taintToleration int64
	// Accepted, type-checked, not implemented (as in the native plugin).
	podAffinity, podTopologySpread, imageLocality int64
}

func parseWeights(m map[string]any) (weights, error) {
	w := weights{leastRequested: 1, balancedResource: 1, nodeAffinity: 2, taintToleration: 3,
		podAffinity: 2, podTopologySpread: 2, imageLocality: 1}
	for _, f := range []struct {
		key string
		dst *int64
	}{
		{"leastrequested.weight", &w.leastRequested},
		{"mostrequested.weight", &w.mostRequested},
		{"balancedresource.weight", &w.balancedResource},
		{"nodeaffinity.weight", &w.nodeAffinity},
		{"tainttoleration.weight", &w.taintToleration},
		{"podaffinity.weight", &w.podAffinity},
		{"podtopologyspread.weight", &w.podTopologySpread},
		{"imagelocality.weight", &w.imageLocality},
	} {
		if err := readInt(m, f.key, f.dst); err != nil {
			return w, err
		}
	}
	return w, nil
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
	return fmt.Errorf("argument %q: expected an integer, got %T %v", key, v, v)
}

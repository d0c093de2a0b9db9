package main

import (
	"strings"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func TestWeights(t *testing.T) {
	// Declared: Volcano's keys and defaults (hostplugins/nodeorder/doc.go).
	want := map[string]int64{
		"leastrequested.weight": 1, "mostrequested.weight": 0, "balancedresource.weight": 1,
		"nodeaffinity.weight": 2, "tainttoleration.weight": 3,
		"podaffinity.weight": 2, "podtopologyspread.weight": 2, "imagelocality.weight": 1,
		"podaffinity.hardPodAffinityWeight": 1,
	}
	declared := (&plugin{}).DeclaredArguments()
	for _, d := range declared {
		if def, ok := want[d.Name]; !ok || d.Type != caldera.ArgInt || d.Default != def {
			t.Errorf("declared %+v", d)
		}
	}
	if len(declared) != len(want) {
		t.Errorf("%d arguments declared, want %d", len(declared), len(want))
	}

	for _, c := range []struct {
		name string
		m    map[string]any
		want weights
		err  string
	}{
		{"defaults", nil, weights{leastRequested: 1, balancedResource: 1, nodeAffinity: 2, taintToleration: 3,
			podAffinity: 2, podTopologySpread: 2, imageLocality: 1, hardPodAffinity: 1}, ""},
		{"set", map[string]any{"leastrequested.weight": int64(0), "mostrequested.weight": uint64(4), "balancedresource.weight": 2.0,
			"nodeaffinity.weight": "5", "tainttoleration.weight": int64(-1), "podaffinity.weight": int64(7),
			"podtopologyspread.weight": int64(8), "imagelocality.weight": int64(9), "podaffinity.hardPodAffinityWeight": int64(0)},
			weights{mostRequested: 4, balancedResource: 2, nodeAffinity: 5, taintToleration: -1,
				podAffinity: 7, podTopologySpread: 8, imageLocality: 9}, ""},
		{"hard weight out of range", map[string]any{"podaffinity.hardPodAffinityWeight": int64(101)}, weights{}, "is not in the range 0-100"},
		{"wrong type", map[string]any{"imagelocality.weight": 1.5}, weights{}, "imagelocality.weight"},
	} {
		got, err := parseWeights(c.m)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one naming %s", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v, want %+v", c.name, got, err, c.want)
		}
	}
}

package main

import (
	"strings"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func TestArguments(t *testing.T) {
	// Declared: Volcano's keys and defaults (hostplugins/predicates.ParseArgs).
	want := map[string]bool{
		"predicate.NodeAffinityEnable": true, "predicate.NodePortsEnable": true, "predicate.TaintTolerationEnable": true,
		"predicate.PodAffinityEnable": true, "predicate.NodeVolumeLimitsEnable": true, "predicate.VolumeZoneEnable": true,
		"predicate.PodTopologySpreadEnable": true, "predicate.VolumeBindingEnable": true,
		"predicate.DynamicResourceAllocationEnable": true, "predicate.CacheEnable": false,
	}
	declared := (&plugin{}).DeclaredArguments()
	for _, d := range declared {
		if def, ok := want[d.Name]; !ok || d.Type != caldera.ArgBool || d.Default != def {
			t.Errorf("declared %+v", d)
		}
	}
	if len(declared) != len(want) {
		t.Errorf("%d arguments declared, want %d", len(declared), len(want))
	}

	for _, c := range []struct {
		name string
		m    map[string]any
		want args
		err  string
	}{
		{"defaults", nil, args{true, true, true, true, true, true}, ""},
		{"off", map[string]any{"predicate.NodeAffinityEnable": false, "predicate.NodePortsEnable": "false", "predicate.TaintTolerationEnable": false,
			"predicate.PodAffinityEnable": false, "predicate.PodTopologySpreadEnable": false, "predicate.NodeVolumeLimitsEnable": false,
			"predicate.VolumeZoneEnable": false, "predicate.VolumeBindingEnable": false, "predicate.DynamicResourceAllocationEnable": false},
			args{}, ""},
		{"volume flags are the scheduler's", map[string]any{"predicate.NodeVolumeLimitsEnable": false, "predicate.VolumeBindingEnable": false},
			args{true, true, true, true, true, true}, ""},
		{"ignored but type-checked", map[string]any{"predicate.CacheEnable": 3}, args{}, "predicate.CacheEnable"},
	} {
		got, err := parseArgs(c.m)
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

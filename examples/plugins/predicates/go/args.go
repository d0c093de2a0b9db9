package main

import (
	"fmt"
	"strconv"
)

// args are the native plugin's arguments with Volcano's defaults. Only the
// first three change decisions; the others are read so that a value of the
// wrong type is reported, as the native plugin does.
type args struct {
	nodeAffinity, nodePorts, taintToleration bool
}

// ignoredArgs are accepted and type-checked but not implemented (see
// hostplugins/predicates/doc.go).
var ignoredArgs = []string{
	"predicate.PodAffinityEnable",
	"predicate.NodeVolumeLimitsEnable",
	"predicate.VolumeZoneEnable",
	"predicate.PodTopologySpreadEnable",
	"predicate.VolumeBindingEnable",
	"predicate.DynamicResourceAllocationEnable",
	"predicate.CacheEnable",
}

func parseArgs(m map[string]any) (args, error) {
	a := args{nodeAffinity: true, nodePorts: true, taintToleration: true}
	for _, b := range []struct {
		key string
		dst *bool
	}{
		{"predicate.NodeAffinityEnable", &a.nodeAffinity},
		{"predicate.NodePortsEnable", &a.nodePorts},
		{"predicate.TaintTolerationEnable", &a.taintToleration},
	} {
		if err := readBool(m, b.key, b.dst); err != nil {
			return a, err
		}
	}
	var ignored bool
	for _, key := range ignoredArgs {
		if err := readBool(m, key, &ignored); err != nil {
			return a, err
		}
	}
	return a, nil
}

// readBool reads a boolean as the scheduler's framework.Arguments.Bool does:
// a bool, or a string strconv.ParseBool accepts; absent or nil keeps dst.
func readBool(m map[string]any, key string, dst *bool) error {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case bool:
		*dst = x
		return nil
	case string:
		if b, err := strconv.ParseBool(x); err == nil {
			*dst = b
			return nil
		}
	}
	return fmt.Errorf("argument %q: expected true or false, got %T %v", key, v, v)
}

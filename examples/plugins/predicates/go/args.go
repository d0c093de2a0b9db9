package main

import (
	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// args are the native plugin's arguments that change decisions.
type args struct {
	nodeAffinity, nodePorts, taintToleration bool
	podAffinity, podTopologySpread           bool
	// volumes says a volume filter or the device filter is on, which the
	// port cannot apply: the Wasm view carries no claims, volumes or
	// devices yet.
	volumes bool
}

// volumeKeys are the flags of the volume and device filters the port
// cannot apply.
var volumeKeys = [...]string{"predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable", "predicate.VolumeBindingEnable",
	"predicate.DynamicResourceAllocationEnable"}

// argTable lists every argument the port reads, with Volcano's defaults
// (hostplugins/predicates.ParseArgs): parseArgs reads it and
// DeclaredArguments declares it. An entry without a field is accepted and
// type-checked but not implemented (hostplugins/predicates/doc.go), so that
// a value of the wrong type is reported, as the native plugin does.
var argTable = [...]struct {
	key   string
	def   bool
	field func(*args) *bool
}{
	{"predicate.NodeAffinityEnable", true, func(a *args) *bool { return &a.nodeAffinity }},
	{"predicate.NodePortsEnable", true, func(a *args) *bool { return &a.nodePorts }},
	{"predicate.TaintTolerationEnable", true, func(a *args) *bool { return &a.taintToleration }},
	{"predicate.PodAffinityEnable", true, func(a *args) *bool { return &a.podAffinity }},
	{"predicate.NodeVolumeLimitsEnable", true, nil},
	{"predicate.VolumeZoneEnable", true, nil},
	{"predicate.PodTopologySpreadEnable", true, func(a *args) *bool { return &a.podTopologySpread }},
	{"predicate.VolumeBindingEnable", true, nil},
	{"predicate.DynamicResourceAllocationEnable", true, nil},
	{"predicate.CacheEnable", false, nil},
}

func parseArgs(m map[string]any) (args, error) {
	var a args
	for _, e := range argTable {
		v := e.def
		if err := readBool(m, e.key, &v); err != nil {
			return a, err
		}
		if e.field != nil {
			*e.field(&a) = v
		}
		for _, k := range volumeKeys {
			a.volumes = a.volumes || (e.key == k && v)
		}
	}
	return a, nil
}

// DeclaredArguments lists what parseArgs reads.
func (*plugin) DeclaredArguments() []caldera.ArgumentSpec {
	out := make([]caldera.ArgumentSpec, len(argTable))
	for i, e := range argTable {
		out[i] = caldera.ArgumentSpec{Name: e.key, Type: caldera.ArgBool, Default: e.def}
	}
	return out
}

// readBool reads a boolean as the scheduler's framework.Arguments.Bool does
// (the SDK's reader takes the same values); absent or nil keeps dst.
func readBool(m map[string]any, key string, dst *bool) error {
	b, err := (&caldera.Session{Arguments: m}).Bool(key, *dst)
	if err != nil {
		return err
	}
	*dst = b
	return nil
}

package main

import (
	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// args are the native plugin's arguments that change decisions.
type args struct {
	nodeAffinity, nodePorts, taintToleration bool
	podAffinity, podTopologySpread           bool
	// claimFlags says a volume check or the device check is on: the
	// scheduler runs them for the port from ABI 1.10 (claims.go).
	claimFlags bool
}

// claimKeys are the flags of the checks the scheduler runs for the port.
var claimKeys = [...]string{"predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable", "predicate.VolumeBindingEnable",
	"predicate.DynamicResourceAllocationEnable"}

// argTable lists every argument the port reads, with Volcano's defaults
// (hostplugins/predicates.ParseArgs): parseArgs reads it and
// DeclaredArguments declares it. An entry without a field is type-checked
// here and read elsewhere: the volume and device flags by the scheduler,
// which runs those checks for the port (claims.go), with
// volumebinding.* and dynamicresources.filterTimeoutSeconds; CacheEnable
// by nobody (hostplugins/predicates/doc.go).
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
		for _, k := range claimKeys {
			a.claimFlags = a.claimFlags || (e.key == k && v)
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

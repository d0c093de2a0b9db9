package main

import (
	"errors"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// Argument keys and defaults, as Volcano names them: weights 1, normal
// pods packed by hypernode with a fading of 0.8 per tier, at most 8
// hypernodes offered for eviction. A negative weight or fading, and an
// eviction bound below 1, count as the default.
const (
	weightKey           = "weight"
	binpackCPUKey       = "hypernode.binpack.cpu"
	binpackMemoryKey    = "hypernode.binpack.memory"
	binpackResourcesKey = "hypernode.binpack.resources"
	binpackResourcePfx  = binpackResourcesKey + "."
	normalPodEnableKey  = "hypernode.binpack.normal-pod.enable"
	normalPodFadingKey  = "hypernode.binpack.normal-pod.fading"
	evictMaxKey         = "hypernode.gradient.evict.max-hypernodes"
)

type args struct {
	weight, cpu, memory int64
	scalars             caldera.Scalars
	normalPods          bool
	fading              float64
	evictMax            int64
}

// DeclaredArguments lists what readArgs reads.
func (*plugin) DeclaredArguments() []caldera.ArgumentSpec {
	return []caldera.ArgumentSpec{
		{Name: weightKey, Type: caldera.ArgInt, Default: int64(1)},
		{Name: binpackCPUKey, Type: caldera.ArgInt, Default: int64(1)},
		{Name: binpackMemoryKey, Type: caldera.ArgInt, Default: int64(1)},
		{Name: evictMaxKey, Type: caldera.ArgInt, Default: int64(8)},
		{Name: normalPodEnableKey, Type: caldera.ArgBool, Default: true},
		{Name: normalPodFadingKey, Type: caldera.ArgFloat, Default: 0.8},
		{Name: binpackResourcesKey, Type: caldera.ArgString, Default: ""},
		{Name: binpackResourcePfx + "<name>", Type: caldera.ArgInt, Default: int64(1)},
	}
}

// readArgs reads the arguments as the native plugin does, refusing a key
// it does not know.
func readArgs(s *caldera.Session) (args, error) {
	a := args{}
	var err error
	for _, f := range []struct {
		key string
		dst *int64
		def int64
	}{{weightKey, &a.weight, 1}, {binpackCPUKey, &a.cpu, 1}, {binpackMemoryKey, &a.memory, 1}, {evictMaxKey, &a.evictMax, 8}} {
		if *f.dst, err = s.Int(f.key, f.def); err != nil {
			return a, err
		}
	}
	for _, p := range []*int64{&a.weight, &a.cpu, &a.memory} {
		if *p < 0 {
			*p = 1
		}
	}
	if a.evictMax <= 0 {
		a.evictMax = 8
	}
	if a.normalPods, err = s.Bool(normalPodEnableKey, true); err != nil {
		return a, err
	}
	if a.fading, err = s.Float(normalPodFadingKey, 0.8); err != nil {
		return a, err
	}
	if a.fading < 0 {
		a.fading = 0.8
	}
	list, err := s.String(binpackResourcesKey, "")
	if err != nil {
		return a, err
	}
	known := []string{weightKey, binpackCPUKey, binpackMemoryKey, binpackResourcesKey, normalPodEnableKey, normalPodFadingKey, evictMaxKey}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		w, err := s.Int(binpackResourcePfx+name, 1)
		if err != nil {
			return a, err
		}
		if w < 0 {
			w = 1
		}
		a.scalars.Set(name, w)
		known = append(known, binpackResourcePfx+name)
	}
	var unknown []string
	for key := range s.Arguments {
		if !contains(known, key) && !strings.HasPrefix(key, "wasm.") {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		return a, errors.New("unknown arguments " + strings.Join(unknown, ", ") + " (a " + binpackResourcePfx + "NAME weight needs NAME listed in " + binpackResourcesKey + ")")
	}
	return a, nil
}

// weightOf is a resource's weight in hypernode binpacking, and whether it
// counts at all.
func (a *args) weightOf(name string) (int64, bool) {
	switch name {
	case "cpu":
		return a.cpu, true
	case "memory":
		return a.memory, true
	}
	return a.scalars.Lookup(name)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package main

import (
	"reflect"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

var _ caldera.ArgumentDeclarer = (*binpack)(nil)

func TestDeclaredArguments(t *testing.T) {
	want := []caldera.ArgumentSpec{
		{Name: "binpack.weight", Type: "int", Default: int64(1)},
		{Name: "binpack.cpu", Type: "int", Default: int64(1)},
		{Name: "binpack.memory", Type: "int", Default: int64(1)},
		{Name: "binpack.resources", Type: "string", Default: ""},
		{Name: "binpack.resources.<name>", Type: "int", Default: int64(1)},
	}
	if got := (&binpack{}).DeclaredArguments(); !reflect.DeepEqual(got, want) {
		t.Errorf("DeclaredArguments() = %v, want %v", got, want)
	}
}

func TestOnSessionOpenReadsArguments(t *testing.T) {
	for _, c := range []struct {
		name             string
		args             map[string]any
		weight, cpu, mem int64
		gpu              int64 // 0: not weighed
	}{
		{"defaults", nil, 1, 1, 1, 0},
		{"set", map[string]any{"binpack.weight": int64(10), "binpack.cpu": int64(2), "binpack.memory": int64(3),
			"binpack.resources": "nvidia.com/gpu, cpu", "binpack.resources.nvidia.com/gpu": int64(5)}, 10, 2, 3, 5},
		{"negative", map[string]any{"binpack.weight": int64(-2), "binpack.cpu": int64(-1), "binpack.memory": int64(-1),
			"binpack.resources": "nvidia.com/gpu", "binpack.resources.nvidia.com/gpu": int64(-3)}, -2, 1, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &binpack{}
			if err := b.OnSessionOpen(caldera.NewSession(caldera.View{}, c.args)); err != nil {
				t.Fatal(err)
			}
			gpu, _ := b.scalars.Lookup("nvidia.com/gpu")
			if b.weight != c.weight || b.cpu != c.cpu || b.memory != c.mem || gpu != c.gpu {
				t.Errorf("weight %d cpu %d memory %d gpu %d, want %d %d %d %d", b.weight, b.cpu, b.memory, gpu, c.weight, c.cpu, c.mem, c.gpu)
			}
		})
	}
	b := &binpack{}
	if err := b.OnSessionOpen(caldera.NewSession(caldera.View{}, map[string]any{"binpack.cpu": "two"})); err == nil {
		t.Error("binpack.cpu \"two\" accepted")
	}
}

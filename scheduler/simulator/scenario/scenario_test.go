package scenario

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

func ptr[T any](v T) *T { return &v }

// Each check names the key, the object and both sides of the difference.
func TestCheckSaysWhatDiffers(t *testing.T) {
	got := &simulator.Result{
		Binds:           map[string]string{"ns/a": "n2", "ns/extra": "n1"},
		Evictions:       []string{"ns/victim", "ns/surprise"},
		PodGroups:       map[string]simulator.PodGroupState{"ns/job": {Phase: "Inqueue"}},
		Unschedulable:   map[string]string{"ns/big": "0/2 nodes are unavailable: 2 Insufficient cpu."},
		Nominated:       map[string]string{"ns/high": "n3"},
		BindAnnotations: map[string]map[string]string{"ns/a": {"gpu-index": "1", "time": "42"}},
	}
	want := &Expectation{
		Binds:          ptr(map[string]string{"ns/a": "n1", "ns/missing": "n1"}),
		BindCount:      ptr(3),
		Evictions:      ptr([]string{"ns/victim", "ns/kept"}),
		EvictCount:     ptr(1),
		PodGroupPhases: map[string]string{"ns/job": "Running", "ns/gone": "Pending"},
		Unschedulable:  map[string]string{"ns/big": "Insufficient memory", "ns/a": "anything", "ns/other": "x"},
		Nominated:      ptr(map[string]string{"ns/high": "n1"}),
		BindAnnotations: map[string]map[string]string{
			"ns/a":     {"gpu-index": "0", "time": "*"},
			"ns/extra": {"gpu-index": "*"},
		},
	}
	diffs := want.Check(got)
	for _, line := range []string{
		"binds: ns/a: bound to n2, want n1",
		"binds: ns/extra: bound to n1, want it not bound",
		"binds: ns/missing: not bound, want it on n1",
		"bindCount: 2 pods bound, want 3",
		"evictions: ns/surprise: evicted, want it kept",
		"evictions: ns/kept: kept, want it evicted",
		"evictCount: 2 pods evicted, want 1",
		`unschedulable: ns/a: bound to n2, want it pending with a reason containing "anything"`,
		`unschedulable: ns/big: reason "0/2 nodes are unavailable: 2 Insufficient cpu.", want it to contain "Insufficient memory"`,
		`unschedulable: ns/other: no unschedulable reason, want one containing "x"`,
		"nominated: ns/high: nominated to n3, want n1",
		"podGroupPhases: ns/gone: no such PodGroup in the result, want phase Pending",
		"podGroupPhases: ns/job: Inqueue, want Running",
		`bindAnnotations: ns/a: gpu-index="1", want "0"`,
		`bindAnnotations: ns/extra: gpu-index not written at bind, want "*"`,
	} {
		if !slices.Contains(diffs, line) {
			t.Errorf("missing difference %q in:\n%s", line, strings.Join(diffs, "\n"))
		}
	}
	if len(diffs) != 15 {
		t.Errorf("%d differences, want 15:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	if d := (&Expectation{BindCount: ptr(2), Binds: ptr(got.Binds)}).Check(got); len(d) != 0 {
		t.Errorf("a matching expectation gave %v", d)
	}
}

func TestReadIsStrictAndDefaultsToOneSession(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ClusterFile, "")
	write(ExpectFile, "bindCount: 1\n")
	f, err := Read(dir)
	if err != nil || f.Expect.Sessions != 1 || f.SchedulerConf != "" || *f.Expect.BindCount != 1 {
		t.Fatalf("Read = %+v, %v; want one session, no scheduler.yaml, bindCount 1", f, err)
	}
	for text, want := range map[string]string{
		"bindcount: 1\n":         `unknown field "bindcount" (did you mean "bindCount"?`,
		"bindCounts: 1\n":        `unknown field "bindCounts"`,
		"sessions: -1\n":         "sessions: expected a positive number",
		"binds: {}\nbinds: {}\n": "binds: given twice",
	} {
		write(ExpectFile, text)
		if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", text, err, want)
		}
	}
}

func TestFindNamesWhatIsNotAScenario(t *testing.T) {
	dir := t.TempDir()
	if _, err := Find(dir); err == nil || !strings.Contains(err.Error(), "no scenario folder") {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := Find(filepath.Join(dir, "absent")); err == nil {
		t.Error("a missing folder gave no error")
	}
	sub := filepath.Join(dir, "b", "case")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, ClusterFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(dir, sub)
	if err != nil || !slices.Equal(got, []string{sub}) {
		t.Errorf("Find = %v, %v; want [%s] once", got, err, sub)
	}
}

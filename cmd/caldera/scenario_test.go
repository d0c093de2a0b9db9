package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

// expectation is a scenario's expect.yaml; a missing key is not checked.
type expectation struct {
	Binds          *map[string]string `json:"binds"`
	BindCount      *int               `json:"bindCount"`
	Evictions      *[]string          `json:"evictions"`
	EvictCount     *int               `json:"evictCount"`
	PodGroupPhases map[string]string  `json:"podGroupPhases"`
	// Unschedulable maps a pod that must stay pending to a text its
	// unschedulable reason must contain.
	Unschedulable map[string]string `json:"unschedulable"`
	// Nominated is the exact set of unbound pods with a nominated node.
	Nominated *map[string]string `json:"nominated"`
	Source    string             `json:"source"`
}

// scenarioDirs finds every folder under testdata/scenarios holding a
// cluster.yaml.
func scenarioDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("../../testdata/scenarios", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "cluster.yaml" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	if len(dirs) == 0 {
		t.Fatal("no scenario folders found")
	}
	return dirs
}

// runSimulate runs `caldera simulate` in-process and decodes its JSON.
func runSimulate(t *testing.T, args ...string) *simulator.Result {
	t.Helper()
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"simulate", "--output", "json"}, args...))
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("caldera simulate %s: %v", strings.Join(args, " "), err)
	}
	var res simulator.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("output is not the JSON contract: %v\n%s", err, out.String())
	}
	return &res
}

// TestScenarios runs every scenario folder for one session and compares the
// outcome with its expect.yaml.
func TestScenarios(t *testing.T) {
	for _, dir := range scenarioDirs(t) {
		dir := dir
		name, _ := filepath.Rel("../../testdata/scenarios", dir)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var want expectation
			if err := yaml.Unmarshal(raw, &want); err != nil {
				t.Fatalf("expect.yaml: %v", err)
			}
			args := []string{"--cluster", filepath.Join(dir, "cluster.yaml"), "--cycles", "1"}
			if _, err := os.Stat(filepath.Join(dir, "scheduler.yaml")); err == nil {
				args = append(args, "--scheduler-conf", filepath.Join(dir, "scheduler.yaml"))
			}
			got := runSimulate(t, args...)
			checkScenario(t, &want, got)
		})
	}
}

func checkScenario(t *testing.T, want *expectation, got *simulator.Result) {
	t.Helper()
	if want.Binds != nil && !maps.Equal(*want.Binds, got.Binds) {
		t.Errorf("binds = %v, want %v (%s)", got.Binds, *want.Binds, want.Source)
	}
	if want.BindCount != nil && len(got.Binds) != *want.BindCount {
		t.Errorf("bind count = %d, want %d", len(got.Binds), *want.BindCount)
	}
	if want.Evictions != nil && !equalSets(*want.Evictions, got.Evictions) {
		t.Errorf("evictions = %v, want %v (%s)", got.Evictions, *want.Evictions, want.Source)
	}
	if want.EvictCount != nil && len(got.Evictions) != *want.EvictCount {
		t.Errorf("evict count = %d, want %d", len(got.Evictions), *want.EvictCount)
	}
	for pod, text := range want.Unschedulable {
		if reason, ok := got.Unschedulable[pod]; !ok || !strings.Contains(reason, text) {
			t.Errorf("pod %s unschedulable reason = %q, want it to contain %q (%s)", pod, reason, text, want.Source)
		}
	}
	if want.Nominated != nil && !maps.Equal(*want.Nominated, got.Nominated) {
		t.Errorf("nominated = %v, want %v (%s)", got.Nominated, *want.Nominated, want.Source)
	}
	for pg, phase := range want.PodGroupPhases {
		if got.PodGroups[pg].Phase != phase {
			t.Errorf("PodGroup %s phase = %q, want %q", pg, got.PodGroups[pg].Phase, phase)
		}
	}
}

func equalSets(a, b []string) bool {
	x, y := append([]string{}, a...), append([]string{}, b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, ",") == strings.Join(y, ",")
}

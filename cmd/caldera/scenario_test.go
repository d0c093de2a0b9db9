package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/simulator"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/scenario"
)

// scenarioDirs finds every folder under testdata/scenarios holding a
// cluster.yaml.
func scenarioDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := scenario.Find("../../testdata/scenarios")
	if err != nil {
		t.Fatal(err)
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

// TestScenarios runs every scenario folder through `caldera plugin
// test`'s runner and reports what differs from its expect.yaml.
func TestScenarios(t *testing.T) {
	for _, dir := range scenarioDirs(t) {
		name, _ := filepath.Rel("../../testdata/scenarios", dir)
		t.Run(name, func(t *testing.T) {
			for _, d := range scenarioDiffs(context.Background(), dir, scenarioOptions{}) {
				t.Error(d)
			}
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// readmeRow is one row of README's plugin or action table: "| `name` | what |".
var readmeRow = regexp.MustCompile("^\\| `([a-z-]+)` \\| (.+) \\|$")

// readmeTables returns, for each table of README's "Volcano's plugins and
// actions" section, its rows by the first header cell.
func readmeTables(t *testing.T) map[string]map[string]string {
	t.Helper()
	section := docSection(t, "README.md", "Volcano's plugins and actions")
	tables := map[string]map[string]string{}
	var current map[string]string
	for _, line := range strings.Split(section, "\n") {
		if head, ok := strings.CutPrefix(line, "| Volcano "); ok {
			current = map[string]string{}
			tables[strings.Fields(head)[0]] = current
			continue
		}
		if m := readmeRow.FindStringSubmatch(line); m != nil && current != nil {
			if _, dup := current[m[1]]; dup {
				t.Errorf("README lists %s twice", m[1])
			}
			current[m[1]] = m[2]
		}
	}
	return tables
}

// union returns the names in a or b, sorted, each once.
func union(a, b []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a), b...))))
}

// README's tables of Volcano's plugins and actions say what the registries
// hold: a plugin is "native" exactly when Caldera registers it, its Wasm
// ports are the ones examples/plugins holds, and every name Volcano
// registers is listed.
func TestReadmeListsWhatTheRegistriesHold(t *testing.T) {
	tables := readmeTables(t)
	plugins, acts := tables["plugin"], tables["action"]
	if plugins == nil || acts == nil {
		t.Fatalf("README's section has tables %v, want plugin and action", tables)
	}
	registered := hostplugins.Registry()
	names := union(framework.VolcanoPlugins, registered.Names())
	for _, name := range names {
		what, ok := plugins[name]
		if !ok {
			t.Errorf("README does not list plugin %s", name)
			continue
		}
		_, native := registered[name]
		if native != strings.HasPrefix(what, "native") || !native != (what == "not implemented") {
			t.Errorf("README says plugin %s is %q; registered natively: %v", name, what, native)
		}
		dir := filepath.Join("..", "..", "examples", "plugins", name)
		for lang, phrase := range map[string]string{"go": "in Go", "rust": "Rust"} {
			_, err := os.Stat(filepath.Join(dir, lang))
			if has := strings.Contains(what, phrase); has != (err == nil) {
				t.Errorf("README says plugin %s is %q; examples/plugins/%s/%s exists: %v", name, what, name, lang, err == nil)
			}
		}
	}
	for name := range plugins {
		if !slices.Contains(names, name) {
			t.Errorf("README lists plugin %s, which neither Volcano nor Caldera registers", name)
		}
	}
	registeredActions := actions.Registry()
	actionNames := union(framework.VolcanoActions, registeredActions.Names())
	for _, name := range actionNames {
		_, ok := registeredActions[name]
		want := map[bool]string{true: "implemented", false: "not implemented"}[ok]
		if got := acts[name]; got != want {
			t.Errorf("README says action %s is %q, want %q", name, got, want)
		}
	}
	for name := range acts {
		if !slices.Contains(actionNames, name) {
			t.Errorf("README lists action %s, which neither Volcano nor Caldera registers", name)
		}
	}
}

// A configuration naming one of Volcano's plugins or actions that Caldera
// lacks is refused with the name and where the README says so.
func TestVolcanoNamesNotImplementedAreRefusedByName(t *testing.T) {
	v := framework.Validator{Plugins: hostplugins.Registry(), Actions: actions.Registry()}
	// Every Volcano plugin and action is implemented; registries without
	// them show the refusal a name would get.
	without := framework.Validator{Plugins: framework.NewRegistry(), Actions: framework.ActionRegistry{}}
	for _, err := range []error{without.ValidatePlugin("numa-aware", nil), without.ValidateAction("gangpreempt", nil)} {
		if err == nil || !strings.Contains(err.Error(), "is not implemented in Caldera") {
			t.Errorf("error = %v, want it to say the name is not implemented", err)
		}
	}
	if err := v.ValidatePlugin("usagee", nil); err == nil || !strings.Contains(err.Error(), "unknown plugin") {
		t.Errorf("error = %v, want unknown plugin", err)
	}
}

// The scheduler configurations of Volcano v1.15's helm chart load as they
// are: its default (installer/helm/chart/volcano/config/volcano-scheduler.conf,
// which agent-scheduler.conf repeats) and the one its CI runs
// (volcano-scheduler-ci.conf). Their content is restated here in flow style.
func TestVolcanoInstallerConfigurationsLoad(t *testing.T) {
	v := framework.Validator{Plugins: hostplugins.Registry(), Actions: actions.Registry()}
	for name, cfg := range map[string]string{
		"volcano-scheduler.conf": `actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang, enablePreemptable: false}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf, enablePreemptable: false}, {name: predicates}, {name: proportion}, {name: nodeorder}, {name: binpack}]
`,
		"volcano-scheduler-ci.conf": `actions: "enqueue, allocate, backfill, reclaim, preempt"
tiers:
- plugins: [{name: priority}, {name: gang, enablePreemptable: false}, {name: conformance}, {name: sla}]
- plugins: [{name: overcommit}, {name: drf, enablePreemptable: false},
    {name: predicates, arguments: {predicate.DynamicResourceAllocationEnable: true}},
    {name: proportion}, {name: nodeorder}, {name: binpack}, {name: network-topology-aware}]
`,
	} {
		if _, err := conf.Parse([]byte(cfg), name, v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

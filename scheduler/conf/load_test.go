package conf

import (
	"fmt"
	"strings"
	"testing"
)

// fakeValidator knows the actions and plugins of Volcano's default
// configuration and wants an integer "weight" argument.
type fakeValidator struct{}

func (fakeValidator) ValidateAction(name string, _ map[string]any) error {
	switch name {
	case "enqueue", "allocate", "backfill", "preempt", "reclaim":
		return nil
	}
	return fmt.Errorf("unknown action")
}

func (fakeValidator) ValidatePlugin(name string, args map[string]any) error {
	switch name {
	case "priority", "gang", "conformance", "overcommit", "drf", "predicates", "proportion", "nodeorder", "binpack":
	default:
		return fmt.Errorf("unknown plugin")
	}
	if v, ok := args["weight"]; ok {
		if _, isInt := v.(int); !isInt {
			return fmt.Errorf("argument %q: expected an integer, got %T %v", "weight", v, v)
		}
	}
	return nil
}

func TestDefaultIsVolcanos(t *testing.T) {
	cfg, err := Default(fakeValidator{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Actions, ","); got != "enqueue,allocate,backfill" {
		t.Errorf("actions = %s", got)
	}
	var tiers []string
	for _, tier := range cfg.Tiers {
		var names []string
		for _, p := range tier.Plugins {
			names = append(names, p.Name)
		}
		tiers = append(tiers, strings.Join(names, ","))
	}
	if got := strings.Join(tiers, " | "); got != "priority,gang,conformance | overcommit,drf,predicates,proportion,nodeorder" {
		t.Errorf("tiers = %s", got)
	}
}

func TestFlagDefaulting(t *testing.T) {
	cfg, err := Parse([]byte("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: false\n"), "f.yaml", fakeValidator{})
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Tiers[0].Plugins[0]
	if IsEnabled(o.EnabledJobOrder) {
		t.Error("an explicit false must stay false")
	}
	if !IsEnabled(o.EnabledJobReady) || !IsEnabled(o.EnabledPredicate) {
		t.Error("an omitted flag defaults to enabled")
	}
	if IsEnabled(o.EnabledClusterOrder) || IsEnabled(o.EnabledHierarchy) {
		t.Error("cluster order and hierarchy stay off unless set")
	}
}

func TestErrorsNameFileKeyAndExpectation(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"bad yaml":        {"actions: [", "f.yaml: invalid YAML"},
		"unknown action":  {"actions: allocate, dance\ntiers: []\n", `f.yaml: actions: "dance": unknown action`},
		"unknown plugin":  {"actions: allocate\ntiers:\n- plugins:\n  - name: magic\n", "f.yaml: tiers[0].plugins[0] (magic): unknown plugin"},
		"flag not a bool": {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: yes please\n", `f.yaml:5: tiers[0].plugins[0].enableJobOrder: expected true or false, got "yes please"`},
		"misspelt flag":   {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrdr: true\n", "f.yaml:5: tiers[0].plugins[0].enableJobOrdr: unknown key"},
		"argument type":   {"actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n      weight: heavy\n", `argument "weight": expected an integer`},
		"unknown top key": {"actions: allocate\ntier: []\n", "f.yaml:2: tier: unknown key"},
		"no actions":      {"tiers: []\n", "f.yaml: actions: expected at least one action"},
		"duplicate":       {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: gang\n", `plugin "gang" is listed twice`},
		"actions twice":   {"actions: enqueue\ntiers: []\nactions: allocate\n", "f.yaml:3: actions: given twice (first on line 1)"},
		"name twice":      {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    name: drf\n", "f.yaml:5: tiers[0].plugins[0].name: given twice (first on line 4)"},
		"hierarchy":       {"actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n    enableHierarchy: true\n", "f.yaml:5: tiers[0].plugins[0].enableHierarchy: hierarchical queues are not implemented for proportion"},
		"hierarchy first": {"actions: allocate\ntiers:\n- plugins:\n  - enableHierarchy: true\n    name: gang\n", "f.yaml:4: tiers[0].plugins[0].enableHierarchy: hierarchical queues are not implemented for gang"},
		"second document": {"actions: allocate\ntiers: []\n---\nactions: enqueue\n", "f.yaml:3: a second YAML document"},
		"empty":           {"# only a comment\n", "f.yaml: empty scheduler configuration"},
		"argument twice":  {"actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n      weight: 1\n      weight: 2\n", "f.yaml:7: tiers[0].plugins[0].arguments.weight: given twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "f.yaml", fakeValidator{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// An anchor and its aliases read as the values they name: two tiers may
// share one plugin's arguments.
func TestAliasesReadAsTheirValues(t *testing.T) {
	text := "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments: &w\n      weight: 3\n- plugins:\n  - name: nodeorder\n    arguments: *w\n"
	cfg, err := Parse([]byte(text), "f.yaml", fakeValidator{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Tiers[1].Plugins[0].Arguments["weight"]; got != 3 {
		t.Errorf("nodeorder's weight = %v, want 3 through the alias", got)
	}
}

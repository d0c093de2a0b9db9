package framework_test

import (
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

type flatPlugin struct{ name string }

func (p flatPlugin) Name() string                    { return p.name }
func (flatPlugin) OnSessionOpen(*framework.Session)  {}
func (flatPlugin) OnSessionClose(*framework.Session) {}

type treePlugin struct{ flatPlugin }

func (treePlugin) TakesHierarchy() {}

// A name that takes enableHierarchy, served by a plugin that does not follow
// the tree (a Wasm module of that name), is refused rather than run flat.
func TestEnableHierarchyNeedsAPluginThatTakesIt(t *testing.T) {
	const cfg = "actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n    enableHierarchy: true\n"
	for _, tc := range []struct {
		plugin framework.Plugin
		err    string
	}{
		{treePlugin{flatPlugin{"capacity"}}, ""},
		{flatPlugin{"capacity"}, `tiers[0].plugins[0] (capacity): enableHierarchy: plugin "capacity" is not served by Caldera's native capacity plugin`},
	} {
		reg := framework.Registry{"capacity": func(framework.Arguments) (framework.Plugin, error) { return tc.plugin, nil }}
		v := framework.Validator{Plugins: reg, Actions: framework.ActionRegistry{"allocate": func(framework.Arguments) (framework.Action, error) { return nil, nil }}}
		_, err := conf.Parse([]byte(cfg), "sched.yaml", v)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%T: Parse = %v, want %q", tc.plugin, err, tc.err)
		}
	}
}

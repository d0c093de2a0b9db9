package extender

import (
	"strings"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// volcanoExample is the configuration of Volcano's extender guide, as a
// user would carry it over.
const volcanoExample = `actions: "reclaim, allocate, backfill, preempt"
tiers:
- plugins:
  - name: extender
    arguments:
      extender.urlPrefix: http://127.0.0.1:8713/
      extender.httpTimeout: 100ms
      extender.onSessionOpenVerb: onSessionOpen
      extender.onSessionCloseVerb: onSessionClose
      extender.predicateVerb: predicate
      extender.prioritizeVerb: prioritize
      extender.preemptableVerb: preemptable
      extender.reclaimableVerb: reclaimable
      extender.queueOverusedVerb: queueOverused
      extender.jobEnqueueableVerb: jobEnqueueable
      extender.ignorable: true
      extender.managedResources:
      - nvidia.com/gpu
      - nvidia.com/gpumem
`

func TestVolcanosConfigurationLoads(t *testing.T) {
	cfg, err := conf.Parse([]byte(volcanoExample), "volcano", framework.Validator{Plugins: framework.Registry{Name: NewFactory()}, Actions: actions.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseConfig(cfg.Tiers[0].Plugins[0].Arguments)
	if err != nil {
		t.Fatal(err)
	}
	if got.URLPrefix != "http://127.0.0.1:8713" || got.HTTPTimeout != 100*time.Millisecond || !got.Ignorable {
		t.Errorf("got %+v", got)
	}
	for c, want := range map[Call]string{OnSessionOpen: "onSessionOpen", Predicate: "predicate", QueueOverused: "queueOverused", JobReady: ""} {
		if got.Verb(c) != want {
			t.Errorf("%s verb %q, want %q", c, got.Verb(c), want)
		}
	}
	if !got.ManagedResources["nvidia.com/gpumem"] || len(got.ManagedResources) != 2 {
		t.Errorf("managed resources %v", got.ManagedResources)
	}
}

func TestArguments(t *testing.T) {
	const url = "http://extender.kube-system:8713"
	tests := []struct {
		name    string
		args    framework.Arguments
		check   func(t *testing.T, c Config)
		wantErr string
	}{{
		name: "no verb: the plugin is inert and needs no address",
		args: nil,
		check: func(t *testing.T, c Config) {
			if c.HTTPTimeout != time.Second || c.MaxConcurrentRequests != 16 || c.Ignorable || c.FailFast || c.FailClosed || c.anyVerb() {
				t.Errorf("defaults %+v", c)
			}
		},
	}, {
		name: "managed resources as a comma-separated string",
		args: framework.Arguments{ManagedResourcesKey: "nvidia.com/gpu, example.com/fpga"},
		check: func(t *testing.T, c Config) {
			if !c.ManagedResources["example.com/fpga"] || len(c.ManagedResources) != 2 {
				t.Errorf("managed resources %v", c.ManagedResources)
			}
		},
	}, {
		name:  "keys outside the plugin's namespace are left alone",
		args:  framework.Arguments{"binpack.weight": 3},
		check: func(*testing.T, Config) {},
	}, {
		name:    "a misspelt verb is refused",
		args:    framework.Arguments{URLPrefixKey: url, "extender.predicateverb": "filter"},
		wantErr: `unknown arguments ["extender.predicateverb"]`,
	}, {
		name:    "a timeout that is not a duration",
		args:    framework.Arguments{HTTPTimeoutKey: "soon"},
		wantErr: `argument "extender.httpTimeout": expected a duration`,
	}, {
		name:    "a timeout of zero",
		args:    framework.Arguments{HTTPTimeoutKey: "0s"},
		wantErr: `argument "extender.httpTimeout": expected a positive duration`,
	}, {
		name:    "ignorable must be a boolean",
		args:    framework.Arguments{IgnorableKey: "perhaps"},
		wantErr: `argument "extender.ignorable": expected true or false`,
	}, {
		name:    "verbs without an address",
		args:    framework.Arguments{Predicate.VerbKey(): "filter"},
		wantErr: `argument "extender.urlPrefix": expected the extender's address`,
	}, {
		name:    "an address without a scheme",
		args:    framework.Arguments{URLPrefixKey: "127.0.0.1:8713", Predicate.VerbKey(): "filter"},
		wantErr: `expected an http:// or https:// address with a host, got "127.0.0.1:8713"`,
	}, {
		name:    "both predicate verbs",
		args:    framework.Arguments{URLPrefixKey: url, Predicate.VerbKey(): "filter", BatchPredicate.VerbKey(): "filterAll"},
		wantErr: "set one of them, not both",
	}, {
		name:    "no request slot",
		args:    framework.Arguments{MaxConcurrentRequestsKey: 0},
		wantErr: `argument "extender.maxConcurrentRequests": expected at least 1, got 0`,
	}, {
		name:    "managed resources of the wrong type",
		args:    framework.Arguments{ManagedResourcesKey: []any{"nvidia.com/gpu", 3}},
		wantErr: `argument "extender.managedResources": expected a list of resource names`,
	}, {
		name: "Caldera's failure options",
		args: framework.Arguments{IgnorableKey: true, FailFastKey: true},
		check: func(t *testing.T, c Config) {
			if !c.Ignorable || !c.FailFast || c.FailClosed {
				t.Errorf("got %+v, want an ignorable extender with failFast", c)
			}
		},
	}, {
		name:    "failFast needs an ignorable extender",
		args:    framework.Arguments{FailFastKey: true},
		wantErr: `argument "extender.failFast": only an ignorable extender can be taken out of a session`,
	}, {
		name:    "failClosed needs a required extender",
		args:    framework.Arguments{IgnorableKey: true, FailClosedKey: true},
		wantErr: `argument "extender.failClosed": an ignorable extender does not fail closed`,
	}, {
		name:    "failClosed must be a boolean",
		args:    framework.Arguments{FailClosedKey: "sometimes"},
		wantErr: `argument "extender.failClosed": expected true or false`,
	}, {
		name:    "a verb of the wrong type",
		args:    framework.Arguments{Prioritize.VerbKey(): true},
		wantErr: `argument "extender.prioritizeVerb": expected a string`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// Only hooks with a verb join the session, as Volcano registers only them.
func TestOnlyConfiguredHooksTakePart(t *testing.T) {
	s := newSetup(t, false, Predicate)
	ssn, _ := s.open(t)
	if ssn.HasNodeOrder() {
		t.Error("the session scores nodes although prioritizeVerb is not set")
	}
	if ssn.Overused(ssn.Queues["q1"]) {
		t.Error("queueOverused answered without its verb")
	}
	s = newSetup(t, false, Prioritize)
	ssn, _ = s.open(t)
	if !ssn.HasNodeOrder() {
		t.Error("prioritizeVerb is set but the session does not score nodes")
	}
	if st := ssn.PredicateFn(testutil.Task(t, ssn, "c1/p1"), ssn.Nodes["n1"]); !st.IsSuccess() || len(s.ext.requestsTo("v1/predicate")) != 0 {
		t.Error("the predicate took part without its verb")
	}
}

package extender

import (
	"fmt"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// allocateOnce runs one allocate session of the setup on cluster() and
// returns where p1 was bound ("" when it was not).
func allocateOnce(t *testing.T, s setup) string {
	t.Helper()
	ci, err := cluster().Build()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := conf.Parse([]byte(s.yaml()), t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cache := &testutil.Cache{Cluster: ci}
	if err := scheduler.New(cache, registry(t), actions.Registry(), cfg).RunOnce(); err != nil {
		t.Fatal(err)
	}
	return cache.Binds["c1/p1"]
}

func TestPrioritizeScoresChooseTheNode(t *testing.T) {
	for _, favourite := range []string{"n1", "n2"} {
		for _, slowly := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slow=%v", favourite, slowly), func(t *testing.T) {
				s := newSetup(t, false, Prioritize)
				h := answer(fmt.Sprintf(`{"nodeScore": {%q: 100}, "errorMessage": ""}`, favourite))
				if slowly {
					h = slow(h)
				}
				s.ext.handle(s.verb(Prioritize), h)
				if got := allocateOnce(t, s); got != favourite {
					t.Fatalf("p1 bound to %q, want %q, the node the extender scored 100", got, favourite)
				}
				sent := s.ext.requestsTo(s.verb(Prioritize))
				if len(sent) != 1 {
					t.Fatalf("%d prioritize requests for one task, want 1", len(sent))
				}
				var names []string
				for _, n := range decode(t, sent[0])["nodes"].([]any) {
					names = append(names, n.(map[string]any)["Name"].(string))
				}
				if strings.Join(names, ",") != "n1,n2" && strings.Join(names, ",") != "n2,n1" {
					t.Errorf("request's nodes %v, want n1 and n2", names)
				}
			})
		}
	}
}

func TestPrioritizeFailures(t *testing.T) {
	for _, pol := range policies {
		for _, f := range faults {
			t.Run(pol.name+"/"+f.name, func(t *testing.T) {
				s := newPolicySetup(t, pol, Prioritize).forFault(t, f)
				before := failureCount(t, Prioritize, f.cause)
				ssn, _ := s.open(t)
				task := testutil.Task(t, ssn, "c1/p1")
				nodes := []*api.NodeInfo{ssn.Nodes["n1"], ssn.Nodes["n2"]}
				for i := 0; i < 2; i++ {
					scores := []float64{7, 7}
					err := ssn.BatchNodeOrderFn(task, nodes, scores)
					if scores[0] != 7 || scores[1] != 7 {
						t.Errorf("scores changed to %v by a failed call", scores)
					}
					if pol.ignorable && err != nil {
						t.Fatalf("ignorable extender failed the scoring: %v", err)
					}
					if !pol.ignorable {
						wantCallError(t, err, s, Prioritize, f)
					}
				}
				wantAsked(t, Prioritize, f, before, pol.asked(2))
			})
		}
	}
}

// What a user sees end to end: an ignorable extender that fails leaves the
// session to schedule without it; a required one keeps the task pending.
func TestPrioritizeFailureAndTheSession(t *testing.T) {
	for _, pol := range policies {
		t.Run(pol.name, func(t *testing.T) {
			s := newPolicySetup(t, pol, Prioritize).forFault(t, faults[0])
			got := allocateOnce(t, s)
			if pol.ignorable && got == "" {
				t.Fatal("p1 was not bound: an ignorable extender's failure must not stop scheduling")
			}
			if !pol.ignorable && got != "" {
				t.Fatalf("p1 bound to %s although the required extender could not score", got)
			}
		})
	}
}

func TestPrioritizeAnswerErrorsFailUnderBothPolicies(t *testing.T) {
	for _, body := range []string{`{"nodeScore": null, "errorMessage": "no GPU data yet"}`, `{}`} {
		for _, pol := range policies {
			t.Run(pol.name+"/"+body, func(t *testing.T) {
				s := newPolicySetup(t, pol, Prioritize)
				s.ext.handle(s.verb(Prioritize), answer(body))
				before := failureCount(t, Prioritize, CauseAnswer)
				ssn, _ := s.open(t)
				scores := make([]float64, 2)
				err := ssn.BatchNodeOrderFn(testutil.Task(t, ssn, "c1/p1"), []*api.NodeInfo{ssn.Nodes["n1"], ssn.Nodes["n2"]}, scores)
				if err == nil || !strings.Contains(err.Error(), "extender prioritize: POST "+s.url+"/"+s.verb(Prioritize)) {
					t.Fatalf("error %v, want one naming the call and URL", err)
				}
				if strings.Contains(body, "GPU") && !strings.Contains(err.Error(), "no GPU data yet") {
					t.Errorf("error %q does not carry the extender's message", err)
				}
				if failureCount(t, Prioritize, CauseAnswer) <= before {
					t.Error("the answer error was not counted")
				}
			})
		}
	}
}

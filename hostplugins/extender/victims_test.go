package extender

import (
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

var victimCalls = []Call{Preemptable, Reclaimable}

// chooseVictims runs the session's combination for the call: the extender
// votes first in the tier, then allvictims votes for every candidate.
func chooseVictims(t *testing.T, ssn *framework.Session, call Call) []*api.TaskInfo {
	t.Helper()
	evictor := testutil.Task(t, ssn, "c1/p1")
	candidates := []*api.TaskInfo{testutil.Task(t, ssn, "c1/r1"), testutil.Task(t, ssn, "c1/r2")}
	if call == Preemptable {
		return ssn.Preemptable(evictor, candidates)
	}
	return ssn.Reclaimable(evictor, candidates)
}

func victimSetup(t *testing.T, pol policy, call Call) setup {
	s := newPolicySetup(t, pol, call)
	s.after = "  - name: allvictims\n"
	return s
}

func TestVictimsAnswers(t *testing.T) {
	tests := []struct {
		name, body string
		want       string
	}{
		{"victims are matched by UID to the candidates", `{"status": 1, "victims": [{"UID": "c1-r2", "Name": "r2"}, {"UID": "somebody-else"}]}`, "c1/r2"},
		{"status 0 abstains and the tier follows the other voter", `{"status": 0, "victims": [{"UID": "c1-r2"}]}`, "c1/r1,c1/r2"},
		{"a vote with no victims vetoes the tier", `{"status": -1, "victims": []}`, ""},
	}
	for _, call := range victimCalls {
		for _, tc := range tests {
			t.Run(call.String()+"/"+tc.name, func(t *testing.T) {
				s := victimSetup(t, required, call)
				s.ext.handle(s.verb(call), answer(tc.body))
				ssn, _ := s.open(t)
				got := chooseVictims(t, ssn, call)
				if strings.Join(testutil.Keys(got), ",") != tc.want {
					t.Fatalf("victims %v, want [%s]", testutil.Keys(got), tc.want)
				}
				for _, v := range got {
					if v != testutil.Task(t, ssn, v.Key()) {
						t.Errorf("victim %s is not the session's task object", v.Key())
					}
				}
				body := decode(t, s.ext.requestsTo(s.verb(call))[0])
				if body["evictor"].(map[string]any)["Name"] != "p1" || len(body["evictees"].([]any)) != 2 {
					t.Errorf("request %v, want evictor p1 and two evictees", body)
				}
			})
		}
	}
}

func TestVictimsFailures(t *testing.T) {
	for _, call := range victimCalls {
		for _, pol := range policies {
			for _, f := range faults {
				t.Run(call.String()+"/"+pol.name+"/"+f.name, func(t *testing.T) {
					s := victimSetup(t, pol, call).forFault(t, f)
					before := failureCount(t, call, f.cause)
					ssn, _ := s.open(t)
					for i := 0; i < 2; i++ {
						got := chooseVictims(t, ssn, call)
						if pol.failFast {
							// Out of the session: the other voter decides.
							if strings.Join(testutil.Keys(got), ",") != "c1/r1,c1/r2" {
								t.Fatalf("victims %v, want the other voter's r1 and r2", testutil.Keys(got))
							}
							continue
						}
						// Volcano's answer under both policies: a vote with
						// no victims, which vetoes the tier.
						if len(got) != 0 {
							t.Fatalf("victims %v, want none while the extender cannot answer", testutil.Keys(got))
						}
					}
					wantCallError(t, plugin(t, ssn).lastErr, s, call, f)
					wantAsked(t, call, f, before, pol.asked(2))
				})
			}
		}
	}
}

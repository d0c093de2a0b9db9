package extender

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// predicateCalls are the two ways to ask about nodes.
var predicateCalls = []Call{Predicate, BatchPredicate}

// rejectN1 answers either predicate call: n1 fails with the given code and
// reason, n2 passes.
func rejectN1(call Call, code int, reason string) http.HandlerFunc {
	if call == BatchPredicate {
		return answer(fmt.Sprintf(`{"nodeStatus": {"n1": {"status": %q, "code": %d}, "n2": {"status": ""}}}`, reason, code))
	}
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Node struct{ Name string } `json:"node"`
		}
		if err := decodeBody(r, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.Node.Name == "n1" {
			answer(fmt.Sprintf(`{"status": %q, "code": %d}`, reason, code))(w, r)
			return
		}
		answer(`{"status": "", "code": 0}`)(w, r)
	}
}

func TestPredicateRejectsWithTheExtendersReason(t *testing.T) {
	tests := []struct {
		name     string
		code     int
		wantCode framework.Code
	}{
		{"unschedulable", 2, framework.Unschedulable},
		{"unresolvable", 3, framework.UnschedulableAndUnresolvable},
		{"message without a code is an error, as in Volcano", 0, framework.Error},
		{"skip with a message still rejects", 5, framework.Error},
	}
	for _, call := range predicateCalls {
		for _, tc := range tests {
			for _, slowly := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/slow=%v", call, tc.name, slowly)
				t.Run(name, func(t *testing.T) {
					s := newSetup(t, false, call)
					h := rejectN1(call, tc.code, "n1 is kept for inference")
					if slowly {
						h = slow(h)
					}
					s.ext.handle(s.verb(call), h)
					ssn, _ := s.open(t)
					task := testutil.Task(t, ssn, "c1/p1")

					st := ssn.PredicateFn(task, ssn.Nodes["n1"])
					if st.IsSuccess() || st.Code != tc.wantCode || st.Message() != "n1 is kept for inference" || st.Plugin != Name {
						t.Errorf("n1: got %+v, want code %v with the extender's reason from plugin %q", st, tc.wantCode, Name)
					}
					if st := ssn.PredicateFn(task, ssn.Nodes["n2"]); !st.IsSuccess() {
						t.Errorf("n2: got %+v, want it to pass", st)
					}
					sent := s.ext.requestsTo(s.verb(call))
					wantRequests := map[Call]int{Predicate: 2, BatchPredicate: 1}[call]
					if len(sent) != wantRequests {
						t.Fatalf("%d requests for two nodes, want %d", len(sent), wantRequests)
					}
					body := decode(t, sent[0])
					if got := body["task"].(map[string]any)["Name"]; got != "p1" {
						t.Errorf("request's task.Name = %v, want p1", got)
					}
				})
			}
		}
	}
}

func TestBatchPredicateAsksAgainWhenANodeChanged(t *testing.T) {
	s := newSetup(t, false, BatchPredicate)
	s.ext.handle(s.verb(BatchPredicate), rejectN1(BatchPredicate, 2, "busy"))
	ssn, _ := s.open(t)
	task := testutil.Task(t, ssn, "c1/p1")
	n1, n2 := ssn.Nodes["n1"], ssn.Nodes["n2"]
	ssn.PredicateFn(task, n1)
	ssn.PredicateFn(task, n2)
	// Placing a task on n2 changes it: the remembered verdicts are stale.
	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(testutil.Task(t, ssn, "c1/r1"), n2); err != nil {
		t.Fatal(err)
	}
	if st := ssn.PredicateFn(task, n2); !st.IsSuccess() {
		t.Fatalf("n2: %v", st)
	}
	if got := len(s.ext.requestsTo(s.verb(BatchPredicate))); got != 2 {
		t.Fatalf("%d batch requests, want 2: one per task, and one more after n2 changed", got)
	}
}

func TestPredicateFailures(t *testing.T) {
	for _, call := range predicateCalls {
		for _, pol := range policies {
			for _, f := range faults {
				t.Run(fmt.Sprintf("%s/%s/%s", call, pol.name, f.name), func(t *testing.T) {
					s := newPolicySetup(t, pol, call).forFault(t, f)
					before := failureCount(t, call, f.cause)
					ssn, _ := s.open(t)
					task := testutil.Task(t, ssn, "c1/p1")
					st1 := ssn.PredicateFn(task, ssn.Nodes["n1"])
					st2 := ssn.PredicateFn(task, ssn.Nodes["n2"])

					// The per-node verb asks for each node, the batch verb
					// once for the task, however often it failed before
					// (as Volcano asks an ignorable extender again).
					wantAsked(t, call, f, before, pol.asked(map[Call]int{Predicate: 2, BatchPredicate: 1}[call]))
					if pol.ignorable {
						if !st1.IsSuccess() || !st2.IsSuccess() {
							t.Fatalf("got %v and %v, want both nodes to pass", st1, st2)
						}
						wantCallError(t, plugin(t, ssn).lastErr, s, call, f)
						return
					}
					for _, st := range []*framework.Status{st1, st2} {
						if st.IsSuccess() || st.Code != framework.Error || st.Plugin != Name {
							t.Fatalf("got %+v, want an Error status from %q", st, Name)
						}
						wantCallError(t, st, s, call, f)
					}
				})
			}
		}
	}
}

func TestManagedResourcesLimitTheTasksAsked(t *testing.T) {
	s := newSetup(t, false, Predicate)
	s.ext.handle(s.verb(Predicate), answer(`{"status": "never", "code": 2}`))
	s.after = "" // managedResources goes into the extender's arguments
	yaml := s.yaml() + "      extender.managedResources: [nvidia.com/gpu]\n"
	ssn, _ := testutil.Open(t, cluster(), registry(t), yaml)
	// p1 asks for cpu and memory only: the extender is not asked.
	if st := ssn.PredicateFn(testutil.Task(t, ssn, "c1/p1"), ssn.Nodes["n1"]); !st.IsSuccess() {
		t.Fatalf("got %v, want a pass without asking", st)
	}
	if n := len(s.ext.requestsTo(s.verb(Predicate))); n != 0 {
		t.Fatalf("%d requests for a task that requests no managed resource", n)
	}
}

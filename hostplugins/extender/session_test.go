package extender

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestSessionOpenAndCloseBodies(t *testing.T) {
	s := newSetup(t, false, OnSessionOpen, OnSessionClose)
	// Volcano does not read these answers: an empty body is fine.
	s.ext.handle(s.verb(OnSessionOpen), answer(""))
	s.ext.handle(s.verb(OnSessionClose), answer(""))
	ssn, _ := s.open(t)
	opened := s.ext.requestsTo(s.verb(OnSessionOpen))
	if len(opened) != 1 {
		t.Fatalf("%d onSessionOpen requests, want 1", len(opened))
	}
	body := decode(t, opened[0])
	var keys []string
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "Jobs,NamespaceInfo,NodeList,Nodes,Queues,RevocableNodes" {
		t.Errorf("onSessionOpen keys %s", got)
	}
	jobs := body["Jobs"].(map[string]any)
	if _, ok := jobs["c1/pg1"]; !ok || len(jobs) != 2 {
		t.Errorf("Jobs holds %d jobs, want c1/pg1 and c1/r", len(jobs))
	}
	n1 := body["Nodes"].(map[string]any)["n1"].(map[string]any)
	if tasks := n1["Tasks"].(map[string]any); len(tasks) != 2 {
		t.Errorf("node n1 carries %d tasks, want r1 and r2", len(tasks))
	}
	if q := body["Queues"].(map[string]any)["q1"].(map[string]any); q["Weight"] != 1.0 {
		t.Errorf("queue q1 %v, want Weight 1", q)
	}
	if len(s.ext.requestsTo(s.verb(OnSessionClose))) != 0 {
		t.Fatal("onSessionClose sent before the session closed")
	}
	ssn.Close()
	closed := s.ext.requestsTo(s.verb(OnSessionClose))
	if len(closed) != 1 || string(closed[0]) != "{}" {
		t.Fatalf("onSessionClose requests %q, want one {}", closed)
	}
}

// A failed onSessionOpen, as in Volcano: a required extender sits the
// session out (Volcano registers none of its hooks), an ignorable one is
// asked as usual. With failClosed a required extender's decisions fail
// without asking it; with failFast an ignorable one sits the session out.
func TestSessionOpenFailure(t *testing.T) {
	for _, pol := range policies {
		for _, f := range faults {
			t.Run(pol.name+"/"+f.name, func(t *testing.T) {
				s := newPolicySetup(t, pol, OnSessionOpen, OnSessionClose, Predicate, JobReady, AllocateFunc)
				s.timeout = f.timeout
				if f.unreachable {
					s.url = closedURL(t)
				} else {
					s.ext.handle(s.verb(OnSessionOpen), f.handler(s.ext))
				}
				// Answers that differ from sitting out: n2 rejected, the
				// job not ready, the placement refused.
				s.ext.handle(s.verb(Predicate), answer(`{"status": "n2 is drained", "code": 2}`))
				s.ext.handle(s.verb(JobReady), answer(`{"status": false}`))
				s.ext.handle(s.verb(AllocateFunc), answer(`{"errorMessage": "p1 may not run yet"}`))
				s.ext.handle(s.verb(OnSessionClose), answer(""))
				decisions := []Call{Predicate, JobReady, AllocateFunc}
				var refused []float64 // calls to the closed port, per decision
				for _, c := range decisions {
					refused = append(refused, failureCount(t, c, CauseTransport))
				}
				ssn, _ := s.open(t)
				task, job := testutil.Task(t, ssn, "c1/p1"), testutil.Job(t, ssn, "c1/pg1")
				st := ssn.PredicateFn(task, ssn.Nodes["n2"])
				ready := ssn.JobReady(job)
				placeErr := framework.NewStatement(ssn).Allocate(task, ssn.Nodes["n1"])
				asked := 0
				for i, c := range decisions {
					asked += len(s.ext.requestsTo(s.verb(c))) + int(failureCount(t, c, CauseTransport)-refused[i])
				}

				obeyed := st != nil && st.Code == framework.Unschedulable && st.Message() == "n2 is drained" && !ready &&
					placeErr != nil && strings.Contains(placeErr.Error(), "p1 may not run yet")
				switch {
				case f.cause == CauseDecode || (pol.ignorable && !pol.failFast):
					// The open answer is not read, as in Volcano: garbage
					// there is no failure. An ignorable extender whose
					// open failed is asked as usual.
					if f.unreachable {
						// Asked as usual, and every call failed: Volcano's
						// answers for an ignorable extender.
						if asked != 3 || !st.IsSuccess() || ready || placeErr != nil {
							t.Fatalf("predicate %v, ready %v, placement %v after %d calls: want 3 calls and Volcano's ignorable answers",
								st, ready, placeErr, asked)
						}
						break
					}
					if asked != 3 || !obeyed {
						t.Fatalf("predicate %v, ready %v, placement %v after %d requests: want the extender asked and obeyed",
							st, ready, placeErr, asked)
					}
				case pol.failClosed:
					if asked != 0 {
						t.Errorf("%d decision requests after onSessionOpen failed, want none", asked)
					}
					if st.IsSuccess() || st.Code != framework.Error || ready || placeErr == nil {
						t.Fatalf("predicate %v, ready %v, placement %v: a required extender that missed the snapshot must fail closed",
							st, ready, placeErr)
					}
					wantCallError(t, st, s, OnSessionOpen, f)
					wantCallError(t, placeErr, s, OnSessionOpen, f)
				default:
					// required (Volcano) and ignorable+failFast: out of the
					// session, as if not configured.
					if asked != 0 {
						t.Errorf("%d decision requests after onSessionOpen failed, want none", asked)
					}
					if !st.IsSuccess() || !ready || placeErr != nil {
						t.Fatalf("predicate %v, ready %v, placement %v: the extender must sit the session out", st, ready, placeErr)
					}
				}
				ssn.Close()
				if !f.unreachable && len(s.ext.requestsTo(s.verb(OnSessionClose))) != 1 {
					t.Error("onSessionClose was not sent after a failed open")
				}
			})
		}
	}
}

func TestEventHandlers(t *testing.T) {
	s := newSetup(t, false, AllocateFunc, DeallocateFunc)
	s.ext.handle(s.verb(AllocateFunc), answer(`{"errorMessage": ""}`))
	s.ext.handle(s.verb(DeallocateFunc), answer(`{"errorMessage": "lost track of p1"}`))
	before := failureCount(t, DeallocateFunc, CauseAnswer)
	ssn, _ := s.open(t)
	task := testutil.Task(t, ssn, "c1/p1")
	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(task, ssn.Nodes["n2"]); err != nil {
		t.Fatal(err)
	}
	allocated := s.ext.requestsTo(s.verb(AllocateFunc))
	if len(allocated) != 1 {
		t.Fatalf("%d allocateFunc requests, want 1", len(allocated))
	}
	sent := decode(t, allocated[0])["task"].(map[string]any)
	// Status 2 is Allocated, in Volcano's numbering as in ours.
	if sent["Name"] != "p1" || sent["NodeName"] != "n2" || sent["Status"] != 2.0 {
		t.Errorf("allocateFunc task %v, want p1 allocated on n2", sent)
	}
	stmt.Discard()
	if len(s.ext.requestsTo(s.verb(DeallocateFunc))) != 1 {
		t.Fatal("deallocateFunc was not sent when the allocation was undone")
	}
	if failureCount(t, DeallocateFunc, CauseAnswer) <= before {
		t.Error("the deallocateFunc answer's error was not counted")
	}
	if err := plugin(t, ssn).lastErr; err == nil || !strings.Contains(err.Error(), "lost track of p1") {
		t.Errorf("last error %v, want the extender's message", err)
	}
}

// A failed allocateFunc undoes the placement of a required extender, as
// Volcano's Statement does with the callback's Event.Err; an ignorable
// extender's failure lets it stand.
func TestEventHandlerFailures(t *testing.T) {
	for _, pol := range policies {
		for _, f := range faults {
			t.Run(pol.name+"/"+f.name, func(t *testing.T) {
				s := newPolicySetup(t, pol, AllocateFunc).forFault(t, f)
				before := failureCount(t, AllocateFunc, f.cause)
				ssn, _ := s.open(t)
				task := testutil.Task(t, ssn, "c1/p1")
				for i, node := range []string{"n1", "n2"} {
					stmt := framework.NewStatement(ssn)
					err := stmt.Allocate(task, ssn.Nodes[node])
					if pol.ignorable {
						if err != nil || task.NodeName != node {
							t.Fatalf("placement %d: error %v, task on %q: an ignorable extender's failure must not undo it", i, err, task.NodeName)
						}
						stmt.Discard() // for the next try
						continue
					}
					wantCallError(t, err, s, AllocateFunc, f)
					if task.NodeName != "" || task.Status != api.Pending {
						t.Fatalf("task on %q with status %v: the required extender's failure must undo the placement", task.NodeName, task.Status)
					}
				}
				wantCallError(t, plugin(t, ssn).lastErr, s, AllocateFunc, f)
				wantAsked(t, AllocateFunc, f, before, pol.asked(2))
			})
		}
	}
}

// What a user sees: whether p1 is bound after a session in which the
// extender refuses its placement, answers yes, or fails.
func TestAllocateFuncDecidesThePlacement(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		// bound is, per policy, whether p1 ends up bound.
		bound func(policy) bool
	}{{
		name:    "accepted",
		handler: answer(`{"errorMessage": ""}`),
		bound:   func(policy) bool { return true },
	}, {
		name:    "refused with an errorMessage, under every policy",
		handler: answer(`{"errorMessage": "no licence left for p1"}`),
		bound:   func(policy) bool { return false },
	}, {
		name:    "HTTP 500",
		handler: faults[0].handler(nil),
		bound:   func(p policy) bool { return p.ignorable },
	}}
	for _, tc := range tests {
		for _, pol := range policies {
			t.Run(tc.name+"/"+pol.name, func(t *testing.T) {
				s := newPolicySetup(t, pol, AllocateFunc, DeallocateFunc)
				s.ext.handle(s.verb(AllocateFunc), tc.handler)
				s.ext.handle(s.verb(DeallocateFunc), answer(`{"errorMessage": ""}`))
				got := allocateOnce(t, s)
				if want := tc.bound(pol); (got != "") != want {
					t.Fatalf("p1 bound to %q, want bound: %v", got, want)
				}
				allocs, deallocs := len(s.ext.requestsTo(s.verb(AllocateFunc))), len(s.ext.requestsTo(s.verb(DeallocateFunc)))
				if allocs == 0 {
					t.Fatal("allocateFunc was never asked")
				}
				// Every refused placement is undone, and the extender hears it.
				if wantDeallocs := map[bool]int{true: 0, false: allocs}[got != ""]; deallocs != wantDeallocs {
					t.Errorf("%d allocateFunc and %d deallocateFunc requests, want %d deallocateFunc", allocs, deallocs, wantDeallocs)
				}
			})
		}
	}
}

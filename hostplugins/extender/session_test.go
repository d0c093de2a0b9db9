package extender

import (
	"sort"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
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

// A failed onSessionOpen decides the whole session: an ignorable extender
// sits it out, a required one fails every decision without being asked.
func TestSessionOpenFailure(t *testing.T) {
	for _, ignorable := range []bool{false, true} {
		for _, f := range faults {
			t.Run(policyName(ignorable)+"/"+f.name, func(t *testing.T) {
				s := newSetup(t, ignorable, OnSessionOpen, OnSessionClose, Predicate, JobReady)
				s.timeout = f.timeout
				if f.unreachable {
					s.url = closedURL(t)
				} else {
					s.ext.handle(s.verb(OnSessionOpen), f.handler(s.ext))
				}
				s.ext.handle(s.verb(Predicate), answer(`{"status": ""}`))
				s.ext.handle(s.verb(JobReady), answer(`{"status": true}`))
				s.ext.handle(s.verb(OnSessionClose), answer(""))
				ssn, _ := s.open(t)
				task, job := testutil.Task(t, ssn, "c1/p1"), testutil.Job(t, ssn, "c1/pg1")
				st := ssn.PredicateFn(task, ssn.Nodes["n2"])
				ready := ssn.JobReady(job)
				asked := len(s.ext.requestsTo(s.verb(Predicate))) + len(s.ext.requestsTo(s.verb(JobReady)))
				if f.cause == CauseDecode {
					// The open answer is not read, as in Volcano: garbage
					// there is no failure, and the session goes on asking.
					if asked != 2 || !st.IsSuccess() || !ready {
						t.Fatalf("predicate %v, ready %v after %d requests: garbage after onSessionOpen must not count", st, ready, asked)
					}
					return
				}
				if asked != 0 {
					t.Errorf("%d decision requests after onSessionOpen failed, want none", asked)
				}
				if ignorable {
					if !st.IsSuccess() || !ready {
						t.Fatalf("predicate %v, ready %v: an ignorable extender whose open failed must sit the session out", st, ready)
					}
				} else {
					if st.IsSuccess() || st.Code != framework.Error || ready {
						t.Fatalf("predicate %v, ready %v: a required extender that missed the snapshot must fail closed", st, ready)
					}
					wantCallError(t, st, s, OnSessionOpen, f)
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

func TestEventHandlerFailures(t *testing.T) {
	for _, ignorable := range []bool{false, true} {
		for _, f := range faults {
			t.Run(policyName(ignorable)+"/"+f.name, func(t *testing.T) {
				s := newSetup(t, ignorable, AllocateFunc).forFault(t, f)
				ssn, _ := s.open(t)
				task := testutil.Task(t, ssn, "c1/p1")
				if err := framework.NewStatement(ssn).Allocate(task, ssn.Nodes["n2"]); err != nil {
					t.Fatal(err)
				}
				wantCallError(t, plugin(t, ssn).lastErr, s, AllocateFunc, f)
				if task.NodeName != "n2" {
					t.Errorf("task on %q: the failed notification changed the allocation", task.NodeName)
				}
			})
		}
	}
}

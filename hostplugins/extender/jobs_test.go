package extender

import (
	"fmt"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// A yes/no decision about a job or a queue, as the session combines it.
type decision struct {
	call  Call
	probe func(t *testing.T, ssn *framework.Session) bool
	// answers maps an answer body to the decision it must produce.
	answers map[string]bool
	// whenFailed is the decision when the call fails, per policy.
	whenFailed map[bool]bool
	// subject is the request's key and the Name the object in it has.
	subject, name string
}

var decisions = []decision{{
	call:       QueueOverused,
	probe:      func(_ *testing.T, ssn *framework.Session) bool { return ssn.Overused(ssn.Queues["q1"]) },
	answers:    map[string]bool{`{"overused": true}`: true, `{"overused": false}`: false},
	whenFailed: map[bool]bool{false: true, true: false},
	subject:    "queue", name: "q1",
}, {
	call: JobEnqueueable,
	probe: func(t *testing.T, ssn *framework.Session) bool {
		return ssn.JobEnqueueable(testutil.Job(t, ssn, "c1/pg1"))
	},
	// Alone in the session, an abstaining extender lets the job in.
	answers:    map[string]bool{`{"status": 1}`: true, `{"status": -1}`: false, `{"status": 0}`: true},
	whenFailed: map[bool]bool{false: false, true: true},
	subject:    "job", name: "pg1",
}, {
	call:       JobReady,
	probe:      func(t *testing.T, ssn *framework.Session) bool { return ssn.JobReady(testutil.Job(t, ssn, "c1/pg1")) },
	answers:    map[string]bool{`{"status": true}`: true, `{"status": false}`: false},
	whenFailed: map[bool]bool{false: false, true: true},
	subject:    "job", name: "pg1",
}}

func TestJobAndQueueAnswers(t *testing.T) {
	for _, d := range decisions {
		for body, want := range d.answers {
			t.Run(d.call.String()+"/"+body, func(t *testing.T) {
				s := newSetup(t, false, d.call)
				s.ext.handle(s.verb(d.call), slow(answer(body)))
				ssn, _ := s.open(t)
				if got := d.probe(t, ssn); got != want {
					t.Fatalf("got %v, want %v", got, want)
				}
				sent := s.ext.requestsTo(s.verb(d.call))
				if len(sent) != 1 {
					t.Fatalf("%d requests, want 1", len(sent))
				}
				subject, ok := decode(t, sent[0])[d.subject].(map[string]any)
				if !ok || subject["Name"] != d.name {
					t.Errorf("request %s, want %q with Name %q", sent[0], d.subject, d.name)
				}
			})
		}
	}
}

func TestJobAndQueueFailures(t *testing.T) {
	for _, d := range decisions {
		for _, ignorable := range []bool{false, true} {
			for _, f := range faults {
				t.Run(fmt.Sprintf("%s/%s/%s", d.call, policyName(ignorable), f.name), func(t *testing.T) {
					s := newSetup(t, ignorable, d.call).forFault(t, f)
					ssn, _ := s.open(t)
					if got, want := d.probe(t, ssn), d.whenFailed[ignorable]; got != want {
						t.Fatalf("got %v, want %v while the %s extender fails", got, want, policyName(ignorable))
					}
					wantCallError(t, plugin(t, ssn).lastErr, s, d.call, f)
				})
			}
		}
	}
}

func TestJobEnqueued(t *testing.T) {
	t.Run("the job is sent and the answer is not read", func(t *testing.T) {
		s := newSetup(t, false, JobEnqueued)
		s.ext.handle(s.verb(JobEnqueued), answer(""))
		before := failureCount(t, JobEnqueued, CauseDecode)
		ssn, _ := s.open(t)
		ssn.JobEnqueued(testutil.Job(t, ssn, "c1/pg1"))
		sent := s.ext.requestsTo(s.verb(JobEnqueued))
		if len(sent) != 1 || decode(t, sent[0])["job"].(map[string]any)["Name"] != "pg1" {
			t.Fatalf("requests %q, want one carrying job pg1", sent)
		}
		if failureCount(t, JobEnqueued, CauseDecode) != before || plugin(t, ssn).lastErr != nil {
			t.Fatal("an empty answer to jobEnqueued was taken for a failure")
		}
	})
	for _, ignorable := range []bool{false, true} {
		for _, f := range faults {
			t.Run(policyName(ignorable)+"/"+f.name, func(t *testing.T) {
				s := newSetup(t, ignorable, JobEnqueued).forFault(t, f)
				before := failureCount(t, JobEnqueued, f.cause)
				ssn, _ := s.open(t)
				ssn.JobEnqueued(testutil.Job(t, ssn, "c1/pg1"))
				if f.cause == CauseDecode {
					// Nothing is decoded, so garbage is no failure.
					return
				}
				wantCallError(t, plugin(t, ssn).lastErr, s, JobEnqueued, f)
				if failureCount(t, JobEnqueued, f.cause) <= before {
					t.Error("the failure was not counted")
				}
			})
		}
	}
}

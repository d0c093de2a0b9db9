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
	// after is setup.after: other plugins the decision is combined with.
	after string
	// answers maps an answer body to the decision it must produce.
	answers map[string]bool
	// whenFailed is the decision while the call fails, per policy.
	whenFailed map[policy]bool
	// subject is the request's key and the Name the object in it has.
	subject, name string
}

var decisions = []decision{{
	call:    QueueOverused,
	probe:   func(_ *testing.T, ssn *framework.Session) bool { return ssn.Overused(ssn.Queues["q1"]) },
	answers: map[string]bool{`{"overused": true}`: true, `{"overused": false}`: false},
	// Volcano: overused when required, not when ignorable.
	whenFailed: map[policy]bool{required: true, failClosed: true, ignorable: false, failFast: false},
	subject:    "queue", name: "q1",
}, {
	call: JobEnqueueable,
	probe: func(t *testing.T, ssn *framework.Session) bool {
		return ssn.JobEnqueueable(testutil.Job(t, ssn, "c1/pg1"))
	},
	// A later tier rejects every job: a permit in the extender's tier
	// admits the job, an abstention leaves it to that rejection.
	after: laterTier,
	// Volcano reads any positive status as permit, any negative as reject.
	answers: map[string]bool{`{"status": 1}`: true, `{"status": 2}`: true, `{"status": -1}`: false,
		`{"status": -3}`: false, `{"status": 0}`: false},
	// Volcano: reject when required, permit when ignorable; out of the
	// session (failFast), the extender abstains.
	whenFailed: map[policy]bool{required: false, failClosed: false, ignorable: true, failFast: false},
	subject:    "job", name: "pg1",
}, {
	call:    JobReady,
	probe:   func(t *testing.T, ssn *framework.Session) bool { return ssn.JobReady(testutil.Job(t, ssn, "c1/pg1")) },
	answers: map[string]bool{`{"status": true}`: true, `{"status": false}`: false},
	// Volcano: ready when required, not ready when ignorable. failClosed
	// says not ready; an extender out of the session (failFast) says ready.
	whenFailed: map[policy]bool{required: true, failClosed: false, ignorable: false, failFast: true},
	subject:    "job", name: "pg1",
}}

func TestJobAndQueueAnswers(t *testing.T) {
	for _, d := range decisions {
		for body, want := range d.answers {
			t.Run(d.call.String()+"/"+body, func(t *testing.T) {
				s := newSetup(t, false, d.call)
				s.after = d.after
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
		for _, pol := range policies {
			for _, f := range faults {
				t.Run(fmt.Sprintf("%s/%s/%s", d.call, pol.name, f.name), func(t *testing.T) {
					s := newPolicySetup(t, pol, d.call)
					s.after = d.after
					s = s.forFault(t, f)
					before := failureCount(t, d.call, f.cause)
					ssn, _ := s.open(t)
					for i := 0; i < 2; i++ {
						if got, want := d.probe(t, ssn), d.whenFailed[pol]; got != want {
							t.Fatalf("got %v, want %v while the %s extender fails", got, want, pol.name)
						}
					}
					wantCallError(t, plugin(t, ssn).lastErr, s, d.call, f)
					wantAsked(t, d.call, f, before, pol.asked(2))
				})
			}
		}
	}
}

func TestJobEnqueued(t *testing.T) {
	// The answer decides nothing, but Volcano decodes it: an empty body is
	// a failure there, logged, and here also counted.
	for body, fails := range map[string]bool{`{}`: false, ``: true} {
		t.Run(fmt.Sprintf("answer %q", body), func(t *testing.T) {
			s := newSetup(t, false, JobEnqueued)
			s.ext.handle(s.verb(JobEnqueued), answer(body))
			before := failureCount(t, JobEnqueued, CauseDecode)
			ssn, _ := s.open(t)
			ssn.JobEnqueued(testutil.Job(t, ssn, "c1/pg1"))
			sent := s.ext.requestsTo(s.verb(JobEnqueued))
			if len(sent) != 1 || decode(t, sent[0])["job"].(map[string]any)["Name"] != "pg1" {
				t.Fatalf("requests %q, want one carrying job pg1", sent)
			}
			counted := failureCount(t, JobEnqueued, CauseDecode) > before
			if counted != fails || (plugin(t, ssn).lastErr != nil) != fails {
				t.Fatalf("failure counted %v, last error %v: want a failure %v", counted, plugin(t, ssn).lastErr, fails)
			}
		})
	}
	for _, pol := range policies {
		for _, f := range faults {
			t.Run(pol.name+"/"+f.name, func(t *testing.T) {
				s := newPolicySetup(t, pol, JobEnqueued).forFault(t, f)
				before := failureCount(t, JobEnqueued, f.cause)
				ssn, _ := s.open(t)
				job := testutil.Job(t, ssn, "c1/pg1")
				ssn.JobEnqueued(job)
				ssn.JobEnqueued(job)
				wantCallError(t, plugin(t, ssn).lastErr, s, JobEnqueued, f)
				wantAsked(t, JobEnqueued, f, before, pol.asked(2))
			})
		}
	}
}

package extender

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Any bytes as the answer to every call: each call decodes them into its
// own answer type, and the session sees an answer, a named failure or an
// abstention, never a panic, a victim it did not offer or a task it does
// not hold. Seeds: one well-formed answer of each shape.
func FuzzAnswers(f *testing.F) {
	for _, seed := range []string{
		`{"status": "busy", "code": 2}`,
		`{"nodeStatus": {"n1": {"status": "busy", "code": 3}, "n2": {"status": ""}}}`,
		`{"nodeScore": {"n1": 10, "n2": -1e308}}`,
		`{"status": 1, "victims": [{"UID": "r1"}, {"UID": "nobody"}]}`,
		`{"status": -1}`,
		`{"status": true, "overused": true, "errorMessage": ""}`,
		`{"errorMessage": "no"}`,
	} {
		f.Add([]byte(seed))
	}
	var current atomic.Pointer[[]byte]
	s := newSetup(f, false, Predicate, Prioritize, Preemptable, Reclaimable,
		QueueOverused, JobEnqueueable, JobEnqueued, JobReady, AllocateFunc, DeallocateFunc)
	for _, v := range s.verbs {
		s.ext.handle(v, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(*current.Load())
		})
	}
	batch := newSetup(f, false, BatchPredicate)
	batch.ext.handle(batch.verb(BatchPredicate), func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(*current.Load())
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		current.Store(&data)
		for _, each := range []setup{s, batch} {
			ssn, _ := each.open(t)
			askEveryCall(t, ssn)
		}
	})
}

// askEveryCall makes each of the session's calls once and checks what a
// scheduler relies on whatever the extender said.
func askEveryCall(t *testing.T, ssn *framework.Session) {
	p1 := testutil.Task(t, ssn, "c1/p1")
	offered := []*api.TaskInfo{testutil.Task(t, ssn, "c1/r1"), testutil.Task(t, ssn, "c1/r2")}
	for _, n := range []string{"n1", "n2"} {
		if st := ssn.PredicateFn(p1, ssn.Nodes[n]); !st.IsSuccess() && st.Message() == "" {
			t.Errorf("%s rejected without a reason: %+v", n, st)
		}
	}
	nodes := []*api.NodeInfo{ssn.Nodes["n1"], ssn.Nodes["n2"]}
	_ = ssn.BatchNodeOrderFn(p1, nodes, make([]float64, len(nodes)))
	for _, victims := range [][]*api.TaskInfo{ssn.Preemptable(p1, offered), ssn.Reclaimable(p1, offered)} {
		for _, v := range victims {
			if v != offered[0] && v != offered[1] {
				t.Errorf("victim %s was not offered", v.Name)
			}
		}
	}
	job := testutil.Job(t, ssn, "c1/pg1")
	_ = ssn.JobEnqueueable(job)
	ssn.JobEnqueued(job)
	_ = ssn.JobReady(job)
	_ = ssn.Overused(ssn.Queues["q1"])
	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(p1, ssn.Nodes["n2"]); err == nil {
		stmt.Discard()
	}
}

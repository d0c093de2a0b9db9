package extender

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
)

func TestConnectionsOutliveSessions(t *testing.T) {
	s := newSetup(t, false, Predicate, JobReady)
	s.ext.handle(s.verb(Predicate), answer(`{"status": ""}`))
	s.ext.handle(s.verb(JobReady), answer(`{"status": true}`))
	reg := registry(t)
	for i := 0; i < 3; i++ {
		ssn, _ := testutil.Open(t, cluster(), reg, s.yaml())
		task := testutil.Task(t, ssn, "c1/p1")
		ssn.PredicateFn(task, ssn.Nodes["n1"])
		ssn.PredicateFn(task, ssn.Nodes["n2"])
		ssn.JobReady(testutil.Job(t, ssn, "c1/pg1"))
		ssn.Close()
	}
	if got := len(s.ext.requestsTo(s.verb(Predicate))); got != 6 {
		t.Fatalf("%d predicate requests, want 6", got)
	}
	// One connection serves them all. net/http may dial a second one when
	// a request starts before the previous connection is back in the idle
	// pool; a client per session would need at least three.
	shared := s.ext.connections()
	if shared > 2 {
		t.Fatalf("9 calls over 3 sessions opened %d connections, want them reused", shared)
	}
	// A plugin from another factory (another scheduler) has its own client.
	ssn, _ := testutil.Open(t, cluster(), registry(t), s.yaml())
	ssn.JobReady(testutil.Job(t, ssn, "c1/pg1"))
	if got := s.ext.connections(); got <= shared {
		t.Fatalf("%d connections after a call from another factory, want a new one", got)
	}
}

// The limit is checked by taking its slots: with all of them held, a call
// waits, times out without reaching the extender, and says why.
func TestConcurrencyLimitHoldsCallsBack(t *testing.T) {
	ext := newFakeExtender(t)
	ext.handle("ready", answer(`{"status": true}`))
	cfg := Config{URLPrefix: ext.URL(), HTTPTimeout: 100 * time.Millisecond, MaxConcurrentRequests: 2}
	e := newEndpoint(&cfg)
	e.slots <- struct{}{}
	e.slots <- struct{}{}
	var out jobReadyResponse
	err := e.post(JobReady, "ready", jobRequest{}, &out)
	var ce *CallError
	if !errors.As(err, &ce) || ce.Cause != CauseTimeout ||
		!strings.Contains(err.Error(), "all 2 request slots (extender.maxConcurrentRequests) stayed busy for 100ms") {
		t.Fatalf("error %v, want a timeout waiting for a request slot", err)
	}
	if n := len(ext.requestsTo("ready")); n != 0 {
		t.Fatalf("%d requests reached the extender past the limit", n)
	}
	<-e.slots
	if err := e.post(JobReady, "ready", jobRequest{}, &out); err != nil || !out.Status {
		t.Fatalf("with a slot free: %v, %+v", err, out)
	}
}

func TestConcurrentCallsStayWithinTheLimit(t *testing.T) {
	ext := newFakeExtender(t)
	var inFlight, peak atomic.Int32
	ext.handle("ready", func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		answer(`{"status": true}`)(w, r)
	})
	cfg := Config{URLPrefix: ext.URL(), HTTPTimeout: 10 * time.Second, MaxConcurrentRequests: 2}
	e := newEndpoint(&cfg)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out jobReadyResponse
			errs <- e.post(JobReady, "ready", jobRequest{}, &out)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d requests in flight at once, limit 2", p)
	}
	if c := ext.connections(); c > 2 {
		t.Fatalf("%d connections for a limit of 2", c)
	}
}

func TestAnswersThatAreNotUsable(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cause   Cause
		status  int
		want    string
	}{{
		name:    "status without a body",
		handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) },
		cause:   CauseStatus, status: 503,
		want: "extender jobReady: POST %s/ready: HTTP 503 Service Unavailable",
	}, {
		name:    "a 2xx other than 200 is not an answer, as in Volcano",
		handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) },
		cause:   CauseStatus, status: 204,
		want: "HTTP 204 No Content",
	}, {
		name: "an answer over 10 MiB",
		handler: func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"status": true, "padding": "` + strings.Repeat("x", maxAnswerBytes) + `"}`))
		},
		cause: CauseDecode, status: 200,
		want: "the answer is larger than 10485760 bytes",
	}, {
		name:    "an answer of the wrong shape",
		handler: answer(`{"status": "yes"}`),
		cause:   CauseDecode, status: 200,
		want: "decoding the answer: json: cannot unmarshal string",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ext := newFakeExtender(t)
			ext.handle("ready", tc.handler)
			cfg := Config{URLPrefix: ext.URL(), HTTPTimeout: 10 * time.Second, MaxConcurrentRequests: 1}
			var out jobReadyResponse
			err := newEndpoint(&cfg).post(JobReady, "ready", jobRequest{}, &out)
			var ce *CallError
			if !errors.As(err, &ce) || ce.Cause != tc.cause || ce.StatusCode != tc.status {
				t.Fatalf("error %#v, want cause %s and status %d", err, tc.cause, tc.status)
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, ext.URL())
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q, want it to say %q", err, want)
			}
		})
	}
}

package extender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// fakeExtender is an HTTP extender on loopback whose answer to each path
// the test sets, and which records every request it gets.
type fakeExtender struct {
	srv *httptest.Server
	// release unblocks handlers that wait for the client to give up, so
	// that closing the server never hangs.
	release chan struct{}

	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	requests []request
	newConns int
}

type request struct {
	path string
	body []byte
}

func newFakeExtender(t testing.TB) *fakeExtender {
	t.Helper()
	f := &fakeExtender{handlers: map[string]http.HandlerFunc{}, release: make(chan struct{})}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Config.ConnState = f.connState
	f.srv.Start()
	t.Cleanup(func() {
		close(f.release)
		f.srv.Close()
	})
	return f
}

func (f *fakeExtender) URL() string { return f.srv.URL }

func (f *fakeExtender) connState(_ net.Conn, state http.ConnState) {
	if state == http.StateNew {
		f.mu.Lock()
		f.newConns++
		f.mu.Unlock()
	}
}

func (f *fakeExtender) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	f.requests = append(f.requests, request{path: r.URL.Path, body: body})
	h := f.handlers[r.URL.Path]
	f.mu.Unlock()
	if h == nil {
		http.Error(w, "no handler for "+r.URL.Path, http.StatusNotFound)
		return
	}
	h(w, r)
}

// handle sets the answer to requests for a verb.
func (f *fakeExtender) handle(verb string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers["/"+verb] = h
}

// requestsTo returns the bodies received for a verb.
func (f *fakeExtender) requestsTo(verb string) [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out [][]byte
	for _, r := range f.requests {
		if r.path == "/"+verb {
			out = append(out, r.body)
		}
	}
	return out
}

// connections returns how many TCP connections clients opened.
func (f *fakeExtender) connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.newConns
}

// answer replies 200 with body as JSON.
func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

// fault is a way for a call to fail, with the text its error must carry.
type fault struct {
	name    string
	handler func(f *fakeExtender) http.HandlerFunc
	// timeout is the plugin's extender.httpTimeout for this case.
	timeout string
	// unreachable points the plugin at a closed port instead.
	unreachable bool
	cause       Cause
	detail      string
}

var faults = []fault{{
	name: "HTTP 500",
	handler: func(*fakeExtender) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "extender exploded", http.StatusInternalServerError)
		}
	},
	timeout: "10s",
	cause:   CauseStatus,
	detail:  `HTTP 500 Internal Server Error: "extender exploded"`,
}, {
	name:    "garbage JSON",
	handler: func(*fakeExtender) http.HandlerFunc { return answer(`{"status": nope`) },
	timeout: "10s",
	cause:   CauseDecode,
	detail:  "decoding the answer: invalid character",
}, {
	name: "timeout",
	handler: func(f *fakeExtender) http.HandlerFunc {
		// Never answers: waits until the client hangs up.
		return func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-f.release:
			}
		}
	},
	timeout: "150ms",
	cause:   CauseTimeout,
	detail:  "no answer within 150ms (extender.httpTimeout)",
}, {
	name:        "connection refused",
	unreachable: true,
	timeout:     "10s",
	cause:       CauseTransport,
	detail:      "connection refused",
}}

// closedURL returns the address of a server that is no longer there.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

// slow answers like h, after a pause well within a 10s timeout.
func slow(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		h(w, r)
	}
}

// setup is one test case's extender and configuration.
type setup struct {
	ext       *fakeExtender
	url       string
	timeout   string
	ignorable bool
	// failFast and failClosed are Caldera's opt-in arguments, written
	// only when set, so that the other setups are Volcano configurations.
	failFast, failClosed bool
	verbs                map[Call]string
	// before and after are plugin entries around the extender's, in its
	// tier ("  - name: x\n").
	before, after string
}

// yaml returns an allocate-only configuration with the extender in one tier.
func (s setup) yaml() string {
	var b strings.Builder
	b.WriteString("actions: \"allocate\"\ntiers:\n- plugins:\n")
	b.WriteString(s.before)
	b.WriteString("  - name: extender\n    arguments:\n")
	fmt.Fprintf(&b, "      extender.urlPrefix: %s\n", s.url)
	fmt.Fprintf(&b, "      extender.httpTimeout: %s\n", s.timeout)
	fmt.Fprintf(&b, "      extender.ignorable: %v\n", s.ignorable)
	if s.failFast {
		b.WriteString("      extender.failFast: true\n")
	}
	if s.failClosed {
		b.WriteString("      extender.failClosed: true\n")
	}
	var keys []string
	for c, v := range s.verbs {
		keys = append(keys, fmt.Sprintf("      %s: %s\n", c.VerbKey(), v))
	}
	sort.Strings(keys)
	b.WriteString(strings.Join(keys, ""))
	b.WriteString(s.after)
	return b.String()
}

// forFault returns a setup whose extender fails every verb of s the
// fault's way.
func (s setup) forFault(t *testing.T, f fault) setup {
	s.timeout = f.timeout
	if f.unreachable {
		s.url = closedURL(t)
		return s
	}
	for _, v := range s.verbs {
		s.ext.handle(v, f.handler(s.ext))
	}
	return s
}

// newSetup returns a setup on a fresh extender with a long timeout.
func newSetup(t testing.TB, ignorable bool, verbs ...Call) setup {
	ext := newFakeExtender(t)
	s := setup{ext: ext, url: ext.URL(), timeout: "10s", ignorable: ignorable, verbs: map[Call]string{}}
	for _, c := range verbs {
		// The verbs differ from the call names, as they may in a real
		// configuration.
		s.verbs[c] = "v1/" + c.String()
	}
	return s
}

// policy is one way to configure what failures mean: Volcano's two, and
// each with Caldera's opt-in argument.
type policy struct {
	name                            string
	ignorable, failFast, failClosed bool
}

var (
	required   = policy{name: "required"}
	failClosed = policy{name: "required+failClosed", failClosed: true}
	ignorable  = policy{name: "ignorable", ignorable: true}
	failFast   = policy{name: "ignorable+failFast", ignorable: true, failFast: true}
	policies   = []policy{required, failClosed, ignorable, failFast}
)

// newPolicySetup returns a setup on a fresh extender under a policy.
func newPolicySetup(t *testing.T, p policy, verbs ...Call) setup {
	s := newSetup(t, p.ignorable, verbs...)
	s.failFast, s.failClosed = p.failFast, p.failClosed
	return s
}

// asked is how many times an extender that fails every call is asked when
// the session needs it n times: once with failFast, which then takes it
// out, n times otherwise, as in Volcano.
func (p policy) asked(n int) int {
	if p.failFast {
		return 1
	}
	return n
}

// verb returns the verb a setup uses for a call.
func (s setup) verb(c Call) string { return s.verbs[c] }

// registry holds the extender and the test's stub plugins.
func registry(t testing.TB) framework.Registry {
	return testutil.Registry(t, map[string]framework.Factory{
		Name:                NewFactory(),
		allVictims{}.Name(): func(framework.Arguments) (framework.Plugin, error) { return allVictims{}, nil },
		rejectAll{}.Name():  func(framework.Arguments) (framework.Plugin, error) { return rejectAll{}, nil },
	})
}

// rejectAll rejects every job's admission, so that a test can tell an
// extender that permits (which decides in an earlier tier) from one that
// abstains (this vote in a later tier then decides).
type rejectAll struct{}

func (rejectAll) Name() string                               { return "rejectall" }
func (rejectAll) OnSessionOpen(*framework.Session)           {}
func (rejectAll) OnSessionClose(*framework.Session)          {}
func (rejectAll) JobEnqueueable(*api.JobInfo) framework.Vote { return framework.Reject }

// laterTier is setup.after for a second tier holding rejectall.
const laterTier = "- plugins:\n  - name: rejectall\n"

// allVictims votes every candidate a victim, so that a test can tell an
// extender that abstains (the tier then follows this vote) from one that
// vetoes (the tier allows nothing).
type allVictims struct{}

func (allVictims) Name() string                      { return "allvictims" }
func (allVictims) OnSessionOpen(*framework.Session)  {}
func (allVictims) OnSessionClose(*framework.Session) {}
func (allVictims) Preemptable(_ *api.TaskInfo, c []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return c, true
}
func (allVictims) Reclaimable(_ *api.TaskInfo, c []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return c, true
}

// cluster: two empty 4-cpu nodes, a running job r (r1, r2 on n1) and a
// pending job pg1 (p1), in queue q1.
func cluster() testutil.Cluster {
	res := testutil.Res("cpu", "4", "memory", "8Gi", "pods", "110")
	small := testutil.Res("cpu", "1", "memory", "1Gi")
	return testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q1", 1)},
		Nodes:  []*v1.Node{testutil.Node("n1", res), testutil.Node("n2", res)},
		PodGroups: []*v1beta1.PodGroup{
			testutil.PodGroup("c1", "r", "q1", 1, v1beta1.PodGroupRunning),
			testutil.PodGroup("c1", "pg1", "q1", 1, v1beta1.PodGroupInqueue),
		},
		Pods: []*v1.Pod{
			testutil.Pod("c1", "r1", "r", "n1", small),
			testutil.Pod("c1", "r2", "r", "n1", small),
			testutil.Pod("c1", "p1", "pg1", "", small),
		},
	}
}

// open opens a session of the setup on cluster().
func (s setup) open(t testing.TB) (*framework.Session, *testutil.Cache) {
	t.Helper()
	return testutil.Open(t, cluster(), registry(t), s.yaml())
}

// plugin returns the session's extender instance.
func plugin(t testing.TB, ssn *framework.Session) *Plugin {
	return testutil.Instance[*Plugin](t, ssn)
}

// wantCallError checks that err is the fault's failure of call at the
// setup's URL, with a message that names all of it.
func wantCallError(t *testing.T, err error, s setup, call Call, f fault) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want the %s failure of %s", f.name, call)
	}
	msg := err.Error()
	url := s.url + "/" + s.verb(call)
	for _, want := range []string{"extender " + call.String(), "POST " + url, f.detail} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}

// wantAsked checks that the call failed n times (with the fault's cause)
// since before, which counts the requests even to a closed port.
func wantAsked(t *testing.T, call Call, f fault, before float64, n int) {
	t.Helper()
	if got := failureCount(t, call, f.cause) - before; got != float64(n) {
		t.Errorf("%s failed %v times, want %d", call, got, n)
	}
}

// failureCount reads caldera_extender_request_failures_total for a call
// and cause through a registry, as a scrape would.
func failureCount(t *testing.T, call Call, cause Cause) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(requestFailures)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["call"] == call.String() && labels["cause"] == string(cause) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// decode reads a recorded body into a generic JSON value.
func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not a JSON object: %v\n%s", err, body)
	}
	return m
}

// decodeBody reads a request's JSON body in a handler.
func decodeBody(r *http.Request, v any) error {
	return json.NewDecoder(r.Body).Decode(v)
}

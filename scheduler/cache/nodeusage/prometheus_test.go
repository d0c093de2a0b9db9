package nodeusage

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The queries Volcano v1.15's prometheus source sends for node n1
// (pkg/scheduler/metrics/source/metrics_client_prometheus.go).
const (
	volcanoCPUQueryN1    = `avg_over_time(clamp_min(100 - (avg by (instance) (rate(node_cpu_seconds_total{mode="idle",instance="n1"}[5m])) * 100), 0)[10m:30s])`
	volcanoMemoryQueryN1 = `100*avg_over_time(((1-node_memory_MemAvailable_bytes{instance="n1"}/node_memory_MemTotal_bytes{instance="n1"}))[10m:30s])`
)

var measureTime = time.Date(2025, 6, 1, 12, 0, 0, 500_000_000, time.UTC)

// vector is Prometheus's answer to an instant query: one series per value.
func vector(values ...string) string {
	var rows []string
	for i, v := range values {
		rows = append(rows, fmt.Sprintf(`{"metric":{"instance":"n%d"},"value":[1748779200.5,%q]}`, i+1, v))
	}
	return `{"status":"success","data":{"resultType":"vector","result":[` + strings.Join(rows, ",") + `]}}`
}

// fakePrometheus answers queries by the node their instance label names
// and whether they ask for CPU or memory, and records what it was asked.
type fakePrometheus struct {
	mu      sync.Mutex
	asked   []string // "METHOD path query time"
	answers map[string]string
	status  int
	// refusePost answers POST with 405, as a proxy allowing only GET.
	refusePost bool
}

func (f *fakePrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.refusePost && r.Method == http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := r.Form.Get("query")
	f.mu.Lock()
	f.asked = append(f.asked, r.Method+" "+r.URL.Path+" "+q+" "+r.Form.Get("time"))
	f.mu.Unlock()
	kind := "cpu"
	if strings.Contains(q, "memory") {
		kind = "memory"
	}
	node := q[strings.Index(q, `instance="`)+len(`instance="`):]
	node = node[:strings.Index(node, `"`)]
	answer, ok := f.answers[node+" "+kind]
	if !ok {
		answer = vector()
	}
	if f.status != 0 {
		w.WriteHeader(f.status)
	}
	fmt.Fprint(w, answer)
}

func newPrometheus(t *testing.T, f *fakePrometheus, path string) *Prometheus {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p, err := NewPrometheus(srv.URL+path, false)
	if err != nil {
		t.Fatal(err)
	}
	p.now = func() time.Time { return measureTime }
	return p
}

func TestPrometheusSendsVolcanosQueries(t *testing.T) {
	f := &fakePrometheus{answers: map[string]string{"n1 cpu": vector("42.5"), "n1 memory": vector("61.25", "99")}}
	got, failures := newPrometheus(t, f, "/prom/").Measure(context.Background(), []string{"n1"})
	if len(failures) > 0 {
		t.Fatalf("failures: %v", failures)
	}
	want := []string{
		"POST /prom/api/v1/query " + volcanoCPUQueryN1 + " 1748779200.5",
		"POST /prom/api/v1/query " + volcanoMemoryQueryN1 + " 1748779200.5",
	}
	if strings.Join(f.asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked:\n%s\nwant:\n%s", strings.Join(f.asked, "\n"), strings.Join(want, "\n"))
	}
	u := got["n1"]
	if u == nil || u.CPUUsageAvg[api.UsagePeriod] != 42.5 || u.MemoryUsageAvg[api.UsagePeriod] != 61.25 || !u.MetricsTime.Equal(measureTime) {
		t.Errorf("usage %+v, want cpu 42.5, memory 61.25 (the first series) at %v", u, measureTime)
	}
}

func TestPrometheusFallsBackToGet(t *testing.T) {
	f := &fakePrometheus{refusePost: true, answers: map[string]string{"n1 cpu": vector("1"), "n1 memory": vector("2")}}
	got, failures := newPrometheus(t, f, "").Measure(context.Background(), []string{"n1"})
	if len(failures) > 0 || got["n1"] == nil {
		t.Fatalf("usage %v, failures %v", got, failures)
	}
	if len(f.asked) != 2 || !strings.HasPrefix(f.asked[0], "GET /api/v1/query "+volcanoCPUQueryN1) {
		t.Errorf("asked %q, want GET of Volcano's queries", f.asked)
	}
}

// Each node is measured or failed on its own: a node Prometheus has no
// series for, or whose value is not a number, is not measured, and the
// failure says why without naming the node.
func TestPrometheusNodeFailures(t *testing.T) {
	f := &fakePrometheus{answers: map[string]string{
		"n1 cpu": vector("10"), "n1 memory": vector("20"),
		"n2 cpu": vector("10"), // no memory series
		"n3 cpu": vector("NaN"), "n3 memory": vector("20"),
		"n4 cpu": `{"status":"success","data":{"resultType":"matrix","result":[]}}`,
	}}
	got, failures := newPrometheus(t, f, "").Measure(context.Background(), []string{"n1", "n2", "n3", "n4"})
	if len(got) != 1 || got["n1"] == nil {
		t.Errorf("measured %v, want n1 only", got)
	}
	want := map[string]string{
		"n2": "memory usage: " + errNoSample.Error(),
		"n3": `CPU usage: Prometheus answered "NaN", not a finite number`,
		"n4": "CPU usage: Prometheus answered a matrix, expected a vector",
	}
	if len(failures) != len(want) {
		t.Errorf("failures %v, want %v", failures, want)
	}
	for _, fl := range failures {
		if fl.Err.Error() != want[fl.Node] {
			t.Errorf("%s: %v, want %s", fl.Node, fl.Err, want[fl.Node])
		}
	}
}

// A server that fails fails every node, with its words.
func TestPrometheusServerFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		f    *fakePrometheus
		want string
	}{
		"error answer": {&fakePrometheus{status: http.StatusServiceUnavailable, answers: map[string]string{
			"n1 cpu": `{"status":"error","errorType":"unavailable","error":"too many queries"}`,
			"n2 cpu": `{"status":"error","errorType":"unavailable","error":"too many queries"}`}},
			"CPU usage: Prometheus answered 503 Service Unavailable: unavailable: too many queries"},
		"not Prometheus": {&fakePrometheus{status: http.StatusNotFound, answers: map[string]string{"n1 cpu": "<html>not found</html>", "n2 cpu": "<html>not found</html>"}},
			`CPU usage: Prometheus answered 404 Not Found with no API response (is the address a Prometheus server?): "<html>not found</html>"`},
	} {
		t.Run(name, func(t *testing.T) {
			got, failures := newPrometheus(t, tc.f, "").Measure(context.Background(), []string{"n1", "n2"})
			if len(got) != 0 || len(failures) != 2 {
				t.Fatalf("measured %v, failures %v; want two failures", got, failures)
			}
			for _, fl := range failures {
				if fl.Err.Error() != tc.want {
					t.Errorf("%s: %v, want %s", fl.Node, fl.Err, tc.want)
				}
			}
		})
	}
	t.Run("no server", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		p, err := NewPrometheus(srv.URL, false)
		if err != nil {
			t.Fatal(err)
		}
		got, failures := p.Measure(context.Background(), []string{"n1", "n2", "n3"})
		if len(got) != 0 || len(failures) != 3 {
			t.Fatalf("measured %v, failures %v; want three failures", got, failures)
		}
		nodes := []string{}
		for _, fl := range failures {
			nodes = append(nodes, fl.Node)
			if !strings.Contains(fl.Err.Error(), "connection refused") {
				t.Errorf("%s: %v, want connection refused", fl.Node, fl.Err)
			}
		}
		sort.Strings(nodes)
		if strings.Join(nodes, ",") != "n1,n2,n3" {
			t.Errorf("failed nodes %v", nodes)
		}
	})
}

func TestNewPrometheusRefusesANonURL(t *testing.T) {
	for _, addr := range []string{"", "prometheus:9090", "ftp://p", "http://"} {
		if _, err := NewPrometheus(addr, false); err == nil {
			t.Errorf("NewPrometheus(%q) accepted", addr)
		}
	}
}

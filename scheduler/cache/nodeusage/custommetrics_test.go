package nodeusage

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// fakeCustomMetrics serves the custom metrics API as prometheus-adapter
// does: the group's description, then a MetricValueList per metric.
func fakeCustomMetrics(t *testing.T, lists map[string]string, asked *[]string) *rest.Config {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*asked = append(*asked, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/apis/custom.metrics.k8s.io" {
			fmt.Fprint(w, `{"kind":"APIGroup","apiVersion":"v1","name":"custom.metrics.k8s.io","versions":[{"groupVersion":"custom.metrics.k8s.io/v1beta2","version":"v1beta2"},{"groupVersion":"custom.metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"custom.metrics.k8s.io/v1beta2","version":"v1beta2"}}`)
			return
		}
		metric := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		list, ok := lists[metric]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the metric %s for nodes","reason":"NotFound","code":404}`, metric)
			return
		}
		fmt.Fprint(w, list)
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}
}

func metricList(metric string, items ...string) string {
	return `{"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta2","metadata":{},"items":[` + strings.Join(items, ",") + `]}`
}

func metricItem(node, metric, at, value string) string {
	return fmt.Sprintf(`{"describedObject":{"kind":"Node","name":%q,"apiVersion":"/v1"},"metric":{"name":%q,"selector":null},"timestamp":%q,"value":%q}`, node, metric, at, value)
}

func TestCustomMetrics(t *testing.T) {
	var asked []string
	rc := fakeCustomMetrics(t, map[string]string{
		CustomCPUMetric: metricList(CustomCPUMetric,
			metricItem("n1", CustomCPUMetric, "2025-06-01T12:00:00Z", "523m"),
			metricItem("n2", CustomCPUMetric, "2025-06-01T12:00:00Z", "100m"),
			metricItem("elsewhere", CustomCPUMetric, "2025-06-01T12:00:00Z", "1")),
		CustomMemoryMetric: metricList(CustomMemoryMetric,
			metricItem("n1", CustomMemoryMetric, "2025-06-01T11:59:30Z", "250m")),
	}, &asked)
	c, err := NewCustomMetrics(rc)
	if err != nil {
		t.Fatal(err)
	}
	got, failures := c.Measure(context.Background(), []string{"n1", "n2"})
	want := []string{
		"GET /apis/custom.metrics.k8s.io",
		"GET /apis/custom.metrics.k8s.io/v1beta2/nodes/*/node_cpu_usage_avg",
		"GET /apis/custom.metrics.k8s.io/v1beta2/nodes/*/node_memory_usage_avg",
	}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked:\n%s\nwant:\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
	u := got["n1"]
	if u == nil || math.Abs(u.CPUUsageAvg[api.UsagePeriod]-52.3) > 1e-9 || u.MemoryUsageAvg[api.UsagePeriod] != 25 || !u.MetricsTime.Equal(time.Date(2025, 6, 1, 11, 59, 30, 0, time.UTC)) {
		t.Errorf("n1: %+v, want cpu 52.3, memory 25 at the older timestamp", u)
	}
	if len(got) != 1 || len(failures) != 1 || failures[0].Node != "n2" || failures[0].Err.Error() != "the custom metrics API lists no node_memory_usage_avg for the node" {
		t.Errorf("measured %v, failures %v; want n2 failed for its memory", got, failures)
	}
}

func TestCustomMetricsServerFailure(t *testing.T) {
	var asked []string
	rc := fakeCustomMetrics(t, map[string]string{CustomCPUMetric: metricList(CustomCPUMetric)}, &asked)
	c, err := NewCustomMetrics(rc)
	if err != nil {
		t.Fatal(err)
	}
	got, failures := c.Measure(context.Background(), []string{"n1", "n2"})
	if len(got) != 0 || len(failures) != 2 {
		t.Fatalf("measured %v, failures %v; want both failed", got, failures)
	}
	if msg := failures[0].Err.Error(); !strings.HasPrefix(msg, "listing node_memory_usage_avg: ") {
		t.Errorf("failure %q", msg)
	}
}

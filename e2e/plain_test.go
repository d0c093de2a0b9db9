package e2e

import (
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestPlainPods: pods that name the volcano scheduler but no PodGroup are
// scheduled as jobs of their own in the default queue, which the scheduler
// creates when it is missing. The metrics endpoint serves.
func TestPlainPods(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.CreatePods(harness.Pods{Prefix: "plain", Count: 5, CPU: "500m", Memory: "256Mi"})
	tc.RecordBindings()

	s := tc.StartScheduler()

	waitPods(t, tc, "plain", 5, harness.Running, "bound and Running")
	code, body, err := s.HTTPGet(s.MetricsURL + "/metrics")
	if err != nil || code != 200 || !strings.Contains(body, "# TYPE") {
		t.Errorf("GET /metrics: %d, %v, %d bytes; want 200 with Prometheus text", code, err, len(body))
	}
	if code, _, err := s.HTTPGet(s.HealthzURL + "/healthz"); err != nil || code != 200 {
		t.Errorf("GET /healthz: %d, %v; want 200", code, err)
	}
}

package framework

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// A PodGroup condition carries at most ConditionMessageLimit bytes of its
// message, as a pod's does: the status update holding it must pass the
// API server's request limit.
func TestPodGroupConditionMessageIsCut(t *testing.T) {
	long := strings.Repeat("3/10 tasks in gang unschedulable: an extender's reason; ", 80_000)
	c := (&Session{}).NewCondition(v1beta1.PodGroupUnschedulableType, v1.ConditionTrue, "NotEnoughResources", long)
	if len(c.Message) > api.ConditionMessageLimit || !strings.HasSuffix(c.Message, " ...") {
		t.Errorf("condition message of %d bytes, want at most %d ending \" ...\"", len(c.Message), api.ConditionMessageLimit)
	}
}

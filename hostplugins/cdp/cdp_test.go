package cdp

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

var clock = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// task is a pod with the cool-down given as label or annotation, Running
// and scheduled at scheduled unless that is zero (then Pending), as
// Volcano's cdp_test.go makePod builds it.
func task(name string, labels, annotations map[string]string, scheduled time.Time) *api.TaskInfo {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels, Annotations: annotations},
		Status:     v1.PodStatus{Phase: v1.PodPending},
	}
	if !scheduled.IsZero() {
		pod.Status.Phase = v1.PodRunning
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(scheduled)}}
	}
	return &api.TaskInfo{Name: name, Namespace: "default", Pod: pod}
}

// TestPreemptableFn of Volcano's cdp_test.go (v1.15): of three running
// pods with a 600 s cool-down scheduled 100 s ago, with an unreadable
// cool-down, and scheduled 800 s ago, the first is protected. The rest are
// this plugin's own edges: the label read before the annotation, a pod not
// Running, a Running pod without its PodScheduled condition, the cool-down's
// exact end, and reclaim served alike.
func TestCooldownKeepsRecentPodsFromVictims(t *testing.T) {
	now = func() time.Time { return clock }
	defer func() { now = time.Now }()
	ann := func(v string) map[string]string { return map[string]string{CooldownKey: v} }
	ago := func(s int) time.Time { return clock.Add(-time.Duration(s) * time.Second) }
	noCondition := task("no-condition", nil, ann("600s"), time.Time{})
	noCondition.Pod.Status.Phase = v1.PodRunning
	candidates := []*api.TaskInfo{
		task("task1", nil, ann("600s"), ago(100)),
		task("task2", nil, ann("600abcde"), ago(100)),
		task("task3", nil, ann("600s"), ago(800)),
		task("label-first", ann("600s"), ann("1s"), ago(100)),
		task("pending", nil, ann("600s"), time.Time{}),
		noCondition,
		task("ends-now", nil, ann("600s"), ago(600)),
		task("no-cooldown", nil, nil, ago(1)),
	}
	want := []string{"task2", "task3", "pending", "no-condition", "ends-now", "no-cooldown"}
	p := &Plugin{}
	for hook, filter := range map[string]func(*api.TaskInfo, []*api.TaskInfo) ([]*api.TaskInfo, bool){
		"preemptable": p.Preemptable, "reclaimable": p.Reclaimable,
	} {
		victims, voted := filter(&api.TaskInfo{}, candidates)
		var names []string
		for _, v := range victims {
			names = append(names, v.Name)
		}
		if !voted || !slices.Equal(names, want) {
			t.Errorf("%s: victims %v (voted %v), want %v", hook, names, voted, want)
		}
	}
}

package main

import (
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func TestCriticalPodsAreNeverVictims(t *testing.T) {
	tasks := []caldera.Task{
		{Namespace: "kube-system", Name: "dns"},
		{Namespace: "ns", Name: "agent", PriorityClassName: "system-node-critical"},
		{Namespace: "ns", Name: "api", PriorityClassName: "system-cluster-critical"},
		{Namespace: "ns", Name: "batch", PriorityClassName: "high"},
		{Namespace: "ns", Name: "plain"},
	}
	candidates := make([]*caldera.Task, len(tasks))
	for i := range tasks {
		candidates[i] = &tasks[i]
	}
	c := &conformance{}
	for _, hook := range []func(*caldera.Session, *caldera.Task, []*caldera.Task) ([]*caldera.Task, bool){c.Preemptable, c.Reclaimable} {
		victims, voted := hook(nil, nil, candidates)
		if !voted || len(victims) != 2 || victims[0].Name != "batch" || victims[1].Name != "plain" {
			t.Errorf("victims %v (voted %v), want batch and plain", victims, voted)
		}
	}
	if victims, voted := c.Preemptable(nil, nil, candidates[:3]); !voted || len(victims) != 0 {
		t.Errorf("only critical candidates: victims %v, voted %v; want none, voted", victims, voted)
	}
}

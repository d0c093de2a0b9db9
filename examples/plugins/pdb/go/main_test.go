package main

import (
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// A budget allowing one disruption lets the first matching candidate go
// and refuses the second; a pod it lists as disrupted costs nothing; a pod
// without labels, or one only an empty selector names, is never a victim
// and free to go respectively.
func TestVictimTasks(t *testing.T) {
	app := &caldera.Selector{Requirements: []caldera.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"db"}}}}
	s := caldera.NewSession(caldera.View{DisruptionBudgets: caldera.DisruptionBudgets{
		{Namespace: "ns", Name: "db", Selector: app, DisruptionsAllowed: 1, DisruptedPods: []string{"db-gone"}},
		{Namespace: "ns", Name: "all", Selector: &caldera.Selector{}},
	}}, nil)
	db := map[string]string{"app": "db"}
	tasks := []*caldera.Task{
		{Namespace: "ns", Name: "db-gone", Labels: db},
		{Namespace: "ns", Name: "db-0", Labels: db},
		{Namespace: "ns", Name: "db-1", Labels: db},
		{Namespace: "other", Name: "db-2", Labels: db},
		{Namespace: "ns", Name: "web-0", Labels: map[string]string{"app": "web"}},
		{Namespace: "ns", Name: "bare"},
	}
	p := &pdb{}
	var got []string
	for _, v := range p.VictimTasks(s, tasks) {
		got = append(got, v.Namespace+"/"+v.Name)
	}
	want := []string{"ns/db-gone", "ns/db-0", "other/db-2", "ns/web-0"}
	if len(got) != len(want) {
		t.Fatalf("victims %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("victims %v, want %v", got, want)
		}
	}
}

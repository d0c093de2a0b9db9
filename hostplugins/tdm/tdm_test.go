package tdm

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// noon is the clock of these tests: a window 0:00-0:00 is open (the whole
// day), 0:00-0:01 is closed.
var noon = time.Date(2024, 1, 1, 12, 0, 0, 0, time.Local)

// Volcano v1.15's Test_parseRevocableZone: which windows parse, and how
// long each lasts from its start.
func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		delta time.Duration
		err   bool
	}{
		{"00:00_01:00", 0, true},
		{"00:00-01:00", time.Hour, false},
		{"0:00-23:59", 23*time.Hour + 59*time.Minute, false},
		{"0:00", 0, true},
		{"1:00-0:00", 23 * time.Hour, false},
		{"1:0-0:0", 0, true},
		{"   1:00-0:00    ", 23 * time.Hour, false},
		{"23:59-23:59", 24 * time.Hour, false},
		{"63:59-23:59", 0, true},
	} {
		w, err := parseWindow(tc.raw)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v, want one: %v", tc.raw, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if start, end := w.bounds(noon); end.Sub(start) != tc.delta {
			t.Errorf("%q: lasts %v, want %v", tc.raw, end.Sub(start), tc.delta)
		}
	}
	if _, err := New(framework.Arguments{"tdm.revocable-zone.rz1": "0:00"}); err == nil {
		t.Error("a malformed window was accepted")
	}
	if _, err := New(framework.Arguments{"tdm.revocable-zone.rz1": 5}); err == nil {
		t.Error("a window that is not a string was accepted")
	}
}

func node(name, zone string) *v1.Node {
	n := testutil.Node(name, testutil.Res("cpu", "16", "memory", "64Gi", "pods", "10"))
	if zone != "" {
		n.Labels = map[string]string{ZoneLabel: zone}
	}
	return n
}

// Volcano v1.15's Test_TDM: which nodes pass and what they score, for a
// pod that may use revocable nodes (p1, p3) and one that may not (p2),
// with rz1 open all day and rz2 closed.
func TestPredicateAndScore(t *testing.T) {
	now = func() time.Time { return noon }
	defer func() { now = time.Now }()
	for _, tc := range []struct {
		name      string
		revocable bool
		want      map[string]float64 // passing nodes and their scores
	}{
		{"preemptable task rz available", true, map[string]float64{"n1": 100, "n2": 100, "n3": 0, "n4": 0}},
		{"not preemptable task", false, map[string]float64{"n3": 0, "n4": 0}},
		{"preemptable task and multiple rz", true, map[string]float64{"n1": 100, "n2": 100, "n3": 0, "n4": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := testutil.Pod("c1", "p", "pg1", "", testutil.Res("cpu", "1", "memory", "1Gi"))
			if tc.revocable {
				pod.Annotations[ZoneLabel] = "*"
			}
			c := testutil.Cluster{
				Queues:    []*v1beta1.Queue{testutil.Queue("c1", 1)},
				Nodes:     []*v1.Node{node("n1", "rz1"), node("n2", "rz1"), node("n3", ""), node("n4", ""), node("n5", "rz2")},
				PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("c1", "pg1", "c1", 0, v1beta1.PodGroupInqueue)},
				Pods:      []*v1.Pod{pod},
			}
			conf := "actions: allocate\ntiers:\n- plugins:\n  - name: tdm\n    arguments:\n      tdm.revocable-zone.rz1: \"0:00-0:00\"\n      tdm.revocable-zone.rz2: \"0:00-0:01\"\n"
			ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), conf)
			defer ssn.Close()
			task := testutil.Task(t, ssn, "c1/p")
			for _, n := range ssn.NodeList {
				want, passes := tc.want[n.Name]
				if got := ssn.PredicateFn(task, n) == nil; got != passes {
					t.Errorf("%s passes: %v, want %v", n.Name, got, passes)
				}
				if !passes {
					continue
				}
				if score, err := ssn.NodeOrderFn(task, n); err != nil || score != want {
					t.Errorf("%s: score %v (%v), want %v", n.Name, score, err, want)
				}
			}
		})
	}
}

// Volcano v1.15's Test_TDM_victimsFn: on nodes of rz1, closed (0:00-0:01)
// or open (0:00-0:00), the preemptable running pods each job's budget lets
// go; c1's p1-p3 are preemptable and p4, p5 not, c2's p6-p10 all are.
func TestVictims(t *testing.T) {
	now = func() time.Time { return noon }
	defer func() { now = time.Now }()
	pods := func(ns, group, node string, first, preemptable, last int) []*v1.Pod {
		var out []*v1.Pod
		for i := first; i <= last; i++ {
			p := testutil.Pod(ns, fmt.Sprintf("p%d", i), group, node, testutil.Res("cpu", "1", "memory", "1Gi"))
			p.Status.Phase = v1.PodRunning
			p.Annotations[api.PreemptableKey] = fmt.Sprint(i < first+preemptable)
			out = append(out, p)
		}
		return out
	}
	c1 := pods("c1", "pg1", "n1", 1, 3, 5)
	c2 := pods("c2", "pg2", "n2", 6, 5, 10)
	group := func(ns, name, key, value string) *v1beta1.PodGroup {
		pg := testutil.PodGroup(ns, name, ns, 0, v1beta1.PodGroupRunning)
		pg.Annotations = map[string]string{key: value}
		return pg
	}
	for i, tc := range []struct {
		window string
		groups []*v1beta1.PodGroup
		want   int
	}{
		{"0:00-0:01", []*v1beta1.PodGroup{group("c1", "pg1", MaxUnavailableKey, "30%")}, 2},
		{"0:00-0:00", []*v1beta1.PodGroup{group("c1", "pg1", MaxUnavailableKey, "30%")}, 0},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c1", "pg1", MaxUnavailableKey, "99%")}, 3},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c2", "pg2", MaxUnavailableKey, "50%")}, 3},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c2", "pg2", MaxUnavailableKey, "50%"), group("c1", "pg1", MaxUnavailableKey, "90%")}, 6},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c2", "pg2", MaxUnavailableKey, "3")}, 3},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c2", "pg2", MinAvailableKey, "3")}, 2},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c2", "pg2", MinAvailableKey, "30%")}, 3},
		{"0:00-0:01", []*v1beta1.PodGroup{group("c2", "pg2", MinAvailableKey, "2"), group("c1", "pg1", MaxUnavailableKey, "3")}, 6},
	} {
		t.Run(fmt.Sprint("case ", i), func(t *testing.T) {
			c := testutil.Cluster{Queues: []*v1beta1.Queue{testutil.Queue("c1", 1), testutil.Queue("c2", 1)}, PodGroups: tc.groups}
			for _, pg := range tc.groups {
				if pg.Namespace == "c1" {
					c.Pods, c.Nodes = append(c.Pods, c1...), append(c.Nodes, node("n1", "rz1"))
				} else {
					c.Pods, c.Nodes = append(c.Pods, c2...), append(c.Nodes, node("n2", "rz1"))
				}
			}
			conf := fmt.Sprintf("actions: allocate\ntiers:\n- plugins:\n  - name: tdm\n    arguments:\n      tdm.revocable-zone.rz1: %q\n      tdm.evict.period: 1s\n", tc.window)
			ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), conf)
			defer ssn.Close()
			lastEvict.at = time.Time{}
			if got := len(ssn.VictimTasks(nil)); got != tc.want {
				t.Errorf("%d victims, want %d", got, tc.want)
			}
			// Within the evict period nothing more is named.
			if got := len(ssn.VictimTasks(nil)); tc.want > 0 && got != 0 {
				t.Errorf("%d victims again within the period, want 0", got)
			}
		})
	}
}

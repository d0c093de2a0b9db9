package sla

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// created is when every PodGroup of these tests was made.
var created = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// cluster has job1 without annotations and job2 with the given ones, both
// made at created, as Volcano's TestSlaPlugin builds them.
func cluster(job2 map[string]string) testutil.Cluster {
	pg1 := testutil.PodGroup("default", "job1", "q", 0, v1beta1.PodGroupInqueue)
	pg2 := testutil.PodGroup("default", "job2", "q", 0, v1beta1.PodGroupInqueue)
	pg2.Annotations = job2
	for _, pg := range []*v1beta1.PodGroup{pg1, pg2} {
		pg.CreationTimestamp = metav1.NewTime(created)
	}
	return testutil.Cluster{
		Queues:    []*v1beta1.Queue{testutil.Queue("q", 1)},
		PodGroups: []*v1beta1.PodGroup{pg1, pg2},
	}
}

func config(args string) string {
	return "actions: enqueue, allocate\ntiers:\n- plugins:\n  - name: sla\n    arguments: {" + args + "}\n"
}

// The cases of Volcano's TestSlaPlugin (pkg/scheduler/plugins/sla/sla_test.go,
// v1.15): job2's waiting time of 1h against job1's global 3m or nothing.
// Its "sla error type placement" (an integer argument) is refused here,
// TestArgumentMustBeAPositiveDuration.
func TestJobOrder(t *testing.T) {
	now = func() time.Time { return created.Add(time.Minute) }
	defer func() { now = time.Now }()
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	for _, tc := range []struct {
		name, args  string
		annotations map[string]string
		job1First   bool
	}{
		{"sla normal placement", `sla-waiting-time: 3m`, map[string]string{WaitingTimeKey: "1h"}, true},
		{"none placement", ``, map[string]string{WaitingTimeKey: "1h"}, false},
		{"the volcano.sh annotation is read first", `sla-waiting-time: 3m`, map[string]string{WaitingTimeAnnotation: "1m", WaitingTimeKey: "1h"}, false},
		{"a malformed annotation gives way to the next source", `sla-waiting-time: 3m`, map[string]string{WaitingTimeAnnotation: "soon", WaitingTimeKey: "1m"}, false},
		{"a zero annotation gives way to the next source", `sla-waiting-time: 3m`, map[string]string{WaitingTimeAnnotation: "0s", WaitingTimeKey: "1m"}, false},
		// No deadlines are left to the session's last word: the older
		// job, then the smaller UID.
		{"no waiting time anywhere", ``, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ssn, _ := testutil.Open(t, cluster(tc.annotations), registry, config(tc.args))
			defer ssn.Close()
			job1, job2 := testutil.Job(t, ssn, "default/job1"), testutil.Job(t, ssn, "default/job2")
			if got := ssn.JobOrderFn(job1, job2); got != tc.job1First {
				t.Errorf("job1 before job2 = %v, want %v", got, tc.job1First)
			}
			if !ssn.JobEnqueueable(job1) {
				t.Error("job1 not enqueueable")
			}
		})
	}
}

// A job past its deadline is permitted into the queue and kept pipelined;
// one before it abstains, which leaves the decision to the other plugins
// (none here: enqueueable, and pipelined by default).
func TestPastDeadlinePermits(t *testing.T) {
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	for _, tc := range []struct {
		after time.Duration
		want  framework.Vote
	}{{59 * time.Minute, framework.Abstain}, {time.Hour, framework.Permit}, {2 * time.Hour, framework.Permit}} {
		now = func() time.Time { return created.Add(tc.after) }
		ssn, _ := testutil.Open(t, cluster(map[string]string{WaitingTimeKey: "1h"}), registry, config(""))
		p := ssn.Plugins()[0].(*Plugin)
		job1, job2 := testutil.Job(t, ssn, "default/job1"), testutil.Job(t, ssn, "default/job2")
		if got := p.JobEnqueueable(job2); got != tc.want {
			t.Errorf("%v after creation: enqueueable vote %v, want %v", tc.after, got, tc.want)
		}
		if got := p.JobPipelined(job2); got != tc.want {
			t.Errorf("%v after creation: pipelined vote %v, want %v", tc.after, got, tc.want)
		}
		if got := p.JobPipelined(job1); got != framework.Abstain {
			t.Errorf("job1 without SLA: pipelined vote %v, want abstain", got)
		}
		ssn.Close()
	}
	now = time.Now
}

// Volcano logs an argument that is not a positive duration and runs
// without it ("sla error type placement"); Caldera refuses it.
func TestArgumentMustBeAPositiveDuration(t *testing.T) {
	for value, want := range map[any]string{
		1:      `argument "sla-waiting-time": expected a string`,
		"soon": `argument "sla-waiting-time": expected a duration`,
		"0s":   `argument "sla-waiting-time": expected a duration over 0`,
		"-1m":  `argument "sla-waiting-time": expected a duration`,
	} {
		_, err := New(framework.Arguments{WaitingTimeKey: value})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sla-waiting-time %v: %v, want %q", value, err, want)
		}
	}
	if _, err := New(framework.Arguments{WaitingTimeKey: "1h2m3s4ms5µs6ns"}); err != nil {
		t.Errorf("Volcano's documented example: %v", err)
	}
}

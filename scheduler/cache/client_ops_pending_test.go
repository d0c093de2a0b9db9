package cache

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// TestPodPendingWritesConditionAndNomination: the condition carries the
// session's reason, a nominated node is written, and an empty nomination
// leaves the one the pod has.
func TestPodPendingWritesConditionAndNomination(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	client := k8sfake.NewSimpleClientset(pod)
	u := APIStatusUpdater{Client: client}
	ctx := context.Background()
	read := func() *v1.Pod {
		p, err := client.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	waiting := PodPending{Reason: api.PodReasonUnschedulable, Message: "once resource is released", NominatedNode: "n3"}
	if err := u.UpdatePodPending(ctx, pod, waiting); err != nil {
		t.Fatal(err)
	}
	got := read()
	if got.Status.NominatedNodeName != "n3" || len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Reason != api.PodReasonUnschedulable {
		t.Fatalf("pod status %+v, want nominated to n3 with an Unschedulable condition", got.Status)
	}
	if !saysPending(got, waiting) {
		t.Error("the written pod does not say what was written")
	}

	schedulable := PodPending{Reason: api.PodReasonSchedulable, Message: "can possibly be assigned to n1"}
	if err := u.UpdatePodPending(ctx, got, schedulable); err != nil {
		t.Fatal(err)
	}
	got = read()
	if c := got.Status.Conditions[0]; c.Reason != api.PodReasonSchedulable || c.Message != schedulable.Message || c.Status != v1.ConditionFalse {
		t.Errorf("condition %+v, want PodScheduled=False Schedulable", c)
	}
	if got.Status.NominatedNodeName != "n3" {
		t.Errorf("an empty nomination replaced n3 with %q", got.Status.NominatedNodeName)
	}
}

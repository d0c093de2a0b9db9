package cache

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// A reason of megabytes (an extender's, on every node) reaches the API
// server cut to what it accepts: 32 KiB in a pod's condition, 1,024 bytes
// in an Event, each ending " ...".
func TestLongMessagesAreCutToTheAPIServersLimits(t *testing.T) {
	long := strings.Repeat("node n1 is kept for inference; ", 4<<20/32)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	client := k8sfake.NewSimpleClientset(pod)
	ctx := context.Background()
	if err := (APIStatusUpdater{Client: client}).UpdatePodPending(ctx, pod, PodPending{Reason: api.PodReasonUnschedulable, Message: long}); err != nil {
		t.Fatal(err)
	}
	got, err := client.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msg := got.Status.Conditions[0].Message
	if len(msg) > api.ConditionMessageLimit || !strings.HasSuffix(msg, " ...") || !strings.HasPrefix(long, strings.TrimSuffix(msg, " ...")) {
		t.Errorf("condition message of %d bytes ending %q, want the reason's start cut to at most %d bytes with \" ...\"", len(msg), msg[max(0, len(msg)-20):], api.ConditionMessageLimit)
	}

	fake := record.NewFakeRecorder(2)
	truncatingRecorder{fake}.Event(pod, v1.EventTypeWarning, "FailedScheduling", long)
	truncatingRecorder{fake}.Eventf(pod, v1.EventTypeWarning, "FailedScheduling", "0/3 nodes are available: %s", long)
	for range 2 {
		e := <-fake.Events // "Warning FailedScheduling <message>"
		note := strings.TrimPrefix(e, "Warning FailedScheduling ")
		if len(note) > api.EventMessageLimit || !strings.HasSuffix(note, " ...") {
			t.Errorf("Event note of %d bytes, want at most %d ending \" ...\"", len(note), api.EventMessageLimit)
		}
	}
}

// A cut never splits a character.
func TestTruncateMessageKeepsCharactersWhole(t *testing.T) {
	msg := strings.Repeat("é", 600) // 1,200 bytes
	got := api.TruncateMessage(msg, api.EventMessageLimit)
	if len(got) > api.EventMessageLimit || !strings.HasSuffix(got, " ...") || !utf8.ValidString(got) || !strings.HasPrefix(msg, strings.TrimSuffix(got, " ...")) {
		t.Errorf("cut to %d bytes: %q", len(got), got[len(got)-12:])
	}
	if short := "no nodes"; api.TruncateMessage(short, api.EventMessageLimit) != short {
		t.Error("a short message was changed")
	}
}

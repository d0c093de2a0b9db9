package simulator

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A bind made after an informer listed pods and before it watched them
// never reaches the cache (the fake watch replays nothing), so the first
// session waits until every listed resource is watched.
func TestWaitForWatchesWaitsForEveryListedResource(t *testing.T) {
	e := testEmbedded(t)
	ctx := context.Background()
	if err := e.waitForWatches(ctx, 10*time.Millisecond); err != nil {
		t.Fatalf("nothing listed yet: %v", err)
	}
	if _, err := e.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.vc.SchedulingV1beta1().PodGroups("ns").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	err := e.waitForWatches(ctx, 10*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not watch podgroups in ns, pods within") {
		t.Fatalf("err = %v, want both unwatched resources named", err)
	}
	w, err := e.kube.CoreV1().Pods(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	err = e.waitForWatches(ctx, 10*time.Millisecond)
	if err == nil || strings.Contains(err.Error(), "pods within") {
		t.Fatalf("err = %v, want only podgroups named once pods are watched", err)
	}
	// A watch of every namespace covers a list of one.
	w2, err := e.vc.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	if err := e.waitForWatches(ctx, 10*time.Millisecond); err != nil {
		t.Fatalf("every listed resource is watched: %v", err)
	}
}

// A watch of one namespace does not cover a list of all of them, nor one
// of another namespace.
func TestUnwatchedNeedsAWatchThatCoversTheList(t *testing.T) {
	e := testEmbedded(t)
	ctx := context.Background()
	for _, ns := range []string{metav1.NamespaceAll, "a"} {
		if _, err := e.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := e.kube.CoreV1().Pods("b").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got := strings.Join(unwatched(e.kube.Actions()), ", "); got != "pods, pods in a" {
		t.Errorf("unwatched = %q, want %q", got, "pods, pods in a")
	}
	e.forgetActions()
	if got := unwatched(e.kube.Actions()); len(got) != 0 {
		t.Errorf("unwatched after forgetActions = %v, want none", got)
	}
}

// testEmbedded is the embedded cluster of the test cluster in
// simulator_test.go.
func testEmbedded(t *testing.T) *embedded {
	t.Helper()
	c, err := ParseCluster([]byte(cluster), "cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEmbedded(c)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

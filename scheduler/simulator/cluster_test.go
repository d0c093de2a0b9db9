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
	c, err := ParseCluster([]byte(cluster), "cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEmbedded(c)
	if err != nil {
		t.Fatal(err)
	}
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
	err = e.waitForWatches(ctx, 10*time.Millisecond)
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
	w2, err := e.vc.SchedulingV1beta1().PodGroups("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	if err := e.waitForWatches(ctx, 10*time.Millisecond); err != nil {
		t.Fatalf("every listed resource is watched: %v", err)
	}
}

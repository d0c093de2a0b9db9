package harness

import (
	"fmt"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// BindingRecorder watches the test namespace's pods and remembers the first
// node each pod was bound to. A pod that later shows another node, or loses
// its node, is a violation: a pod is bound at most once. It also keeps the
// last state of every deleted pod. An informer (not a bare watch) is used so
// that recording survives an apiserver restart: it relists and reports what
// changed in between.
type BindingRecorder struct {
	mu         sync.Mutex
	first      map[types.UID]string // first node of each pod
	names      map[types.UID]string // pod names, for messages
	violations []string
	deleted    map[types.UID]*v1.Pod
	stop       chan struct{}
}

// RecordBindings starts a recorder; it stops when the test ends, failing
// the test if it saw a violation.
func (tc *Test) RecordBindings() *BindingRecorder {
	tc.t.Helper()
	r := &BindingRecorder{
		first:   map[types.UID]string{},
		names:   map[types.UID]string{},
		deleted: map[types.UID]*v1.Pod{},
		stop:    make(chan struct{}),
	}
	factory := informers.NewSharedInformerFactoryWithOptions(tc.Kube, 0, informers.WithNamespace(tc.Namespace))
	inf := factory.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.observe(nil, obj.(*v1.Pod)) },
		UpdateFunc: func(old, cur any) { r.observe(old.(*v1.Pod), cur.(*v1.Pod)) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if p, ok := obj.(*v1.Pod); ok {
				r.observe(nil, p)
				r.mu.Lock()
				r.deleted[p.UID] = p
				r.mu.Unlock()
			}
		},
	})
	if err != nil {
		tc.t.Fatal(err)
	}
	factory.Start(r.stop)
	if !cache.WaitForCacheSync(r.stop, inf.HasSynced) {
		tc.t.Fatal("pod informer did not sync")
	}
	tc.t.Cleanup(func() {
		close(r.stop)
		factory.Shutdown()
		for _, v := range r.Violations() {
			tc.t.Errorf("binding violation: %s", v)
		}
	})
	return r
}

func (r *BindingRecorder) observe(old, cur *v1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[cur.UID] = cur.Name
	first, seen := r.first[cur.UID]
	switch {
	case cur.Spec.NodeName == "" && seen:
		r.violations = append(r.violations, fmt.Sprintf("%s: unbound after being bound to %s", cur.Name, first))
	case cur.Spec.NodeName == "":
	case !seen:
		r.first[cur.UID] = cur.Spec.NodeName
	case first != cur.Spec.NodeName:
		r.violations = append(r.violations, fmt.Sprintf("%s: bound to %s, then to %s", cur.Name, first, cur.Spec.NodeName))
	}
	if old != nil && old.Spec.NodeName != "" && old.Spec.NodeName != cur.Spec.NodeName {
		r.violations = append(r.violations, fmt.Sprintf("%s: node changed from %s to %q", cur.Name, old.Spec.NodeName, cur.Spec.NodeName))
	}
}

// Violations lists every rebinding seen so far.
func (r *BindingRecorder) Violations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.violations...)
}

// BoundCount is how many distinct pods were seen bound.
func (r *BindingRecorder) BoundCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.first)
}

// Deleted returns the last seen state of every deleted pod, by name.
func (r *BindingRecorder) Deleted() []*v1.Pod {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*v1.Pod, 0, len(r.deleted))
	for _, p := range r.deleted {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WaitIdle returns once nothing new was bound for quiet, or after timeout:
// for "the scheduler has settled" checks.
func (r *BindingRecorder) WaitIdle(quiet, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	last, since := r.BoundCount(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(pollInterval)
		if n := r.BoundCount(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= quiet {
			return
		}
	}
}

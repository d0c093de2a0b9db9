package simulator

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	vcfake "volcano.sh/apis/pkg/client/clientset/versioned/fake"
)

// embedded is the in-memory API server: client-go's fake clientset for core
// objects, volcano.sh/apis's for PodGroups, Queues, HyperNodes and
// Numatopologies.
type embedded struct {
	kube *k8sfake.Clientset
	vc   *vcfake.Clientset

	// toStart holds the pods bound to a node while Pending ("ns/name"):
	// those of the manifests, then each the binding subresource binds,
	// for startBoundPods, which would otherwise list every pod after
	// every session to find them.
	mu      sync.Mutex
	toStart map[string]bool
}

func newEmbedded(c *Cluster) (*embedded, error) {
	var kubeObjs, vcObjs []runtime.Object
	for _, o := range c.Namespaces {
		kubeObjs = append(kubeObjs, o)
	}
	for _, o := range c.PriorityClasses {
		kubeObjs = append(kubeObjs, o)
	}
	for _, o := range c.Nodes {
		kubeObjs = append(kubeObjs, o)
	}
	for _, o := range c.Pods {
		kubeObjs = append(kubeObjs, o)
	}
	kubeObjs = append(kubeObjs, c.Workloads...)
	kubeObjs = append(kubeObjs, c.Storage...)
	for _, o := range c.Queues {
		vcObjs = append(vcObjs, o)
	}
	for _, o := range c.PodGroups {
		vcObjs = append(vcObjs, o)
	}
	for _, o := range c.HyperNodes {
		vcObjs = append(vcObjs, o)
	}
	for _, o := range c.Numatopologies {
		vcObjs = append(vcObjs, o)
	}
	// NewSimpleClientset, not NewClientset: the latter's field-managed
	// tracker builds a REST mapper on every update (about 3 ms per bind),
	// and the simulator needs no server-side apply.
	widenFakeWatches.Do(func() { watch.DefaultChanSize = fakeWatchBuffer })
	e := &embedded{kube: k8sfake.NewSimpleClientset(kubeObjs...), vc: vcfake.NewSimpleClientset(vcObjs...), //nolint:staticcheck // see above
		toStart: map[string]bool{}}
	for _, p := range c.Pods {
		if p.Spec.NodeName != "" && p.Status.Phase == v1.PodPending {
			e.toStart[p.Namespace+"/"+p.Name] = true
		}
	}
	// The fake clientset ignores the binding subresource; make it do what the
	// API server does: set the pod's node, once.
	e.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		create, ok := a.(k8stesting.CreateAction)
		if !ok || a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := create.GetObject().(*v1.Binding)
		obj, err := e.kube.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		if pod.Spec.NodeName != "" {
			return true, nil, fmt.Errorf("pod %s/%s is already assigned to node %q", pod.Namespace, pod.Name, pod.Spec.NodeName)
		}
		if b.UID != "" && b.UID != pod.UID {
			return true, nil, fmt.Errorf("pod %s/%s: UID precondition failed", pod.Namespace, pod.Name)
		}
		pod.Spec.NodeName = b.Target.Name
		if err := e.kube.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		e.mu.Lock()
		e.toStart[pod.Namespace+"/"+pod.Name] = true
		e.mu.Unlock()
		return true, b, nil
	})
	e.playVolumeControllers()
	return e, nil
}

// The fake clientsets' watchers panic when more than watch.DefaultChanSize
// events wait unread (100 by default), which a session binding a few hundred
// pods at once can reach before the informers read. Only fake watchers use
// the variable; 65,536 events of 32 bytes cost 2 MB per watch.
const fakeWatchBuffer = 1 << 16

var widenFakeWatches sync.Once

// startBoundPods plays the kubelet: every pod bound to a node and still
// pending starts running.
func (e *embedded) startBoundPods(ctx context.Context) ([]*v1.Pod, error) {
	e.mu.Lock()
	keys := slices.Sorted(maps.Keys(e.toStart))
	clear(e.toStart)
	e.mu.Unlock()
	var started []*v1.Pod
	for _, key := range keys {
		namespace, name, _ := strings.Cut(key, "/")
		p, err := e.kube.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue // evicted since
		}
		if err != nil {
			return nil, err
		}
		if p.Spec.NodeName == "" || p.Status.Phase != v1.PodPending {
			continue
		}
		p.Status.Phase = v1.PodRunning
		updated, err := e.kube.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		if err != nil {
			return nil, err
		}
		started = append(started, updated)
	}
	return started, nil
}

// waitForWatches blocks until every informer that listed from the embedded
// cluster has also opened its watch. The fake clientsets' watches see only
// changes made after they open and replay nothing from the list, while an
// informer counts as synced once its list is stored: a bind made in between
// would never reach the cache, which would show the pod Binding for ever.
// Fake watches never close, so this is needed once, before the first
// session.
func (e *embedded) waitForWatches(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		missing := unwatched(append(e.kube.Actions(), e.vc.Actions()...))
		if len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("simulator: informers listed but did not watch %s within %v", strings.Join(missing, ", "), timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// unwatched names the resources (with their namespace, if any) that were
// listed and are watched neither in that namespace nor in all of them,
// sorted.
func unwatched(actions []k8stesting.Action) []string {
	type key struct{ group, resource, namespace string }
	var listed []key
	watched := map[key]bool{}
	for _, a := range actions {
		r := a.GetResource()
		k := key{r.Group, r.Resource, a.GetNamespace()}
		switch a.GetVerb() {
		case "list":
			listed = append(listed, k)
		case "watch":
			watched[k] = true
		}
	}
	seen := map[string]bool{}
	var missing []string
	for _, k := range listed {
		all := k
		all.namespace = ""
		if watched[k] || watched[all] {
			continue
		}
		name := k.resource
		if k.namespace != "" {
			name += " in " + k.namespace
		}
		if !seen[name] {
			seen[name] = true
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return missing
}

// forgetActions drops the actions the fake clientsets recorded: only
// waitForWatches reads them, and they hold a copy of every object written,
// which a long --watch run would otherwise keep for ever.
func (e *embedded) forgetActions() {
	e.kube.ClearActions()
	e.vc.ClearActions()
}

package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"
)

// Test is one test's slice of the shared cluster: a namespace of its own,
// and the cluster-scoped objects (nodes, queues, priority classes,
// HyperNodes, storage classes, volumes, ResourceSlices, DeviceClasses) it
// created, all deleted when the test ends so the next test sees an empty
// cluster. Tests must not run in parallel: every scheduler sees every node.
// A benchmark is a test here too.
type Test struct {
	t         testing.TB
	c         *Cluster
	Ctx       context.Context
	Namespace string
	// Clients, as the admin: everything the Test does, its cleanup
	// included, goes through them, so a test may replace them (with a
	// faster client, say) before it creates anything.
	Kube    kubernetes.Interface
	Volcano vcclient.Interface

	mu              sync.Mutex
	nodes           []string
	queues          []string
	priorityClasses []string
	hyperNodes      []string
	storageClasses  []string
	volumes         []string
	resourceSlices  []string
	deviceClasses   []string
}

// NewTest skips t unless the suite is enabled, creates the test's namespace
// and registers the cleanup.
func NewTest(t testing.TB) *Test {
	t.Helper()
	c := Require(t)
	tc := &Test{t: t, c: c, Ctx: context.Background(), Kube: c.Kube, Volcano: c.Volcano}
	tc.Namespace = namespaceName(t.Name())
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tc.Namespace}}
	if _, err := c.Kube.CoreV1().Namespaces().Create(tc.Ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	// Registered first, so it runs after the cleanups of schedulers and
	// recorders the test starts later.
	t.Cleanup(tc.cleanup)
	return tc
}

// Cluster is the shared cluster.
func (tc *Test) Cluster() *Cluster { return tc.c }

// Name prefixes a cluster-scoped object's name with the namespace, so that
// a leftover of one test never collides with another's.
func (tc *Test) Name(name string) string { return tc.Namespace + "-" + name }

var nonDNS = regexp.MustCompile(`[^a-z0-9]+`)

// namespaceName turns a test name into a unique DNS label.
func namespaceName(testName string) string {
	s := strings.Trim(nonDNS.ReplaceAllString(strings.ToLower(testName), "-"), "-")
	s = strings.TrimPrefix(s, "test-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "e2e-" + s + "-" + hex.EncodeToString(b)
}

// cleanupWorkers is how many deletes cleanup has in flight at once.
const cleanupWorkers = 16

// cleanup checks that no node was overcommitted, then deletes the test's
// pods, PodGroups, PersistentVolumeClaims, PersistentVolumes, storage
// classes, ResourceClaims, ResourceSlices, DeviceClasses, queues, priority
// classes and nodes. The namespace itself stays:
// without kube-controller-manager's namespace controller nothing would
// finish deleting it.
func (tc *Test) cleanup() {
	t, ctx := tc.t, tc.Ctx
	tc.checkNoOvercommit()
	pods := tc.Kube.CoreV1().Pods(tc.Namespace)
	zero := int64(0)
	// One by one, in parallel: the apiserver works through a DeleteCollection
	// one pod at a time and gives up at its request timeout (60s), which
	// the benchmark's ten thousand pods can reach. Grace period 0 removes
	// even bound pods at once, without waiting for kwok.
	if list, err := pods.List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("cleanup: listing pods: %v", err)
	} else if err := Parallel(len(list.Items), cleanupWorkers, func(i int) error {
		return ignoreNotFound(pods.Delete(ctx, list.Items[i].Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	}); err != nil {
		t.Errorf("cleanup: deleting pods: %v", err)
	}
	// PodGroups likewise: Volcano's controller makes one per plain pod.
	groups := tc.Volcano.SchedulingV1beta1().PodGroups(tc.Namespace)
	if list, err := groups.List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("cleanup: listing PodGroups: %v", err)
	} else if err := Parallel(len(list.Items), cleanupWorkers, func(i int) error {
		return ignoreNotFound(groups.Delete(ctx, list.Items[i].Name, metav1.DeleteOptions{}))
	}); err != nil {
		t.Errorf("cleanup: deleting PodGroups: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil && len(list.Items) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("cleanup: pods still in %s after 30s", tc.Namespace)
			break
		}
		time.Sleep(pollInterval)
	}
	tc.deleteStorage()
	tc.deleteDevices()
	tc.mu.Lock()
	defer tc.mu.Unlock()
	for _, q := range tc.queues {
		if err := tc.Volcano.SchedulingV1beta1().Queues().Delete(ctx, q, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleanup: deleting queue %s: %v", q, err)
		}
	}
	for _, hn := range tc.hyperNodes {
		if err := tc.Volcano.TopologyV1alpha1().HyperNodes().Delete(ctx, hn, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleanup: deleting HyperNode %s: %v", hn, err)
		}
	}
	for _, pc := range tc.priorityClasses {
		if err := tc.Kube.SchedulingV1().PriorityClasses().Delete(ctx, pc, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleanup: deleting priority class %s: %v", pc, err)
		}
	}
	if err := Parallel(len(tc.nodes), cleanupWorkers, func(i int) error {
		return ignoreNotFound(tc.Kube.CoreV1().Nodes().Delete(ctx, tc.nodes[i], metav1.DeleteOptions{}))
	}); err != nil {
		t.Errorf("cleanup: deleting nodes: %v", err)
	}
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// checkNoOvercommit fails the test if the pods bound to any of its nodes
// request more cpu, memory or pod slots than the node has allocatable: the
// one thing no scheduler decision may ever do.
func (tc *Test) checkNoOvercommit() {
	tc.mu.Lock()
	nodes := append([]string(nil), tc.nodes...)
	tc.mu.Unlock()
	if len(nodes) == 0 {
		return
	}
	all, err := tc.Kube.CoreV1().Pods(metav1.NamespaceAll).List(tc.Ctx, metav1.ListOptions{})
	if err != nil {
		tc.t.Errorf("overcommit check: listing pods: %v", err)
		return
	}
	nodeList, err := tc.Kube.CoreV1().Nodes().List(tc.Ctx, metav1.ListOptions{})
	if err != nil {
		tc.t.Errorf("overcommit check: listing nodes: %v", err)
		return
	}
	byName := make(map[string]*v1.Node, len(nodeList.Items))
	for i := range nodeList.Items {
		byName[nodeList.Items[i].Name] = &nodeList.Items[i]
	}
	onNode := map[string][]*v1.Pod{}
	for i := range all.Items {
		p := &all.Items[i]
		if p.Spec.NodeName != "" && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			onNode[p.Spec.NodeName] = append(onNode[p.Spec.NodeName], p)
		}
	}
	for _, name := range nodes {
		node, ok := byName[name]
		if !ok {
			tc.t.Errorf("overcommit check: node %s is gone", name)
			continue
		}
		used := v1.ResourceList{}
		count := len(onNode[name])
		for _, p := range onNode[name] {
			for _, c := range p.Spec.Containers {
				for r, q := range c.Resources.Requests {
					sum := used[r]
					sum.Add(q)
					used[r] = sum
				}
			}
		}
		alloc := node.Status.Allocatable
		for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			if u, a := used[r], alloc[r]; u.Cmp(a) > 0 {
				tc.t.Errorf("node %s overcommitted: pods request %s %s, allocatable %s", name, u.String(), r, a.String())
			}
		}
		if a := alloc[v1.ResourcePods]; int64(count) > a.Value() {
			tc.t.Errorf("node %s overcommitted: %d pods, allocatable %s", name, count, a.String())
		}
	}
}

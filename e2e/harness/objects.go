package harness

import (
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
)

// SchedulerName is the schedulerName the suite's pods ask for.
const SchedulerName = "volcano"

// SetLabel is the label CreatePods puts on each pod, valued with the set's
// Prefix, so that tests can list one set.
const SetLabel = "e2e.caldera.dev/set"

// NodeSpec is what CreateNodes gives each node.
type NodeSpec struct {
	CPU, Memory string // quantities, e.g. "4" and "16Gi"
	Pods        int
	Labels      map[string]string
	// LabelsOf, when set, gives the i-th node labels of its own beside
	// Labels (a zone per node, say).
	LabelsOf func(i int) map[string]string
	// Extended adds resources to the capacity (GPUs, say).
	Extended v1.ResourceList
}

// CreateNodes creates n nodes named <namespace>-n<i> and waits until kwok
// reports them Ready. kwok (--manage-all-nodes) keeps the capacity given
// here and fills in conditions, addresses and node info.
func (tc *Test) CreateNodes(n int, spec NodeSpec) []string {
	tc.t.Helper()
	res := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(spec.CPU),
		v1.ResourceMemory: resource.MustParse(spec.Memory),
		v1.ResourcePods:   *resource.NewQuantity(int64(spec.Pods), resource.DecimalSI),
	}
	for name, q := range spec.Extended {
		res[name] = q
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-n%d", tc.Namespace, i)
	}
	// Registered before they exist, so that cleanup deletes whatever was
	// created even if a create fails.
	tc.mu.Lock()
	tc.nodes = append(tc.nodes, names...)
	tc.mu.Unlock()
	err := Parallel(n, nodeCreators, func(i int) error {
		lbls := map[string]string{"type": "kwok", "kubernetes.io/hostname": names[i]}
		for k, v := range spec.Labels {
			lbls[k] = v
		}
		if spec.LabelsOf != nil {
			for k, v := range spec.LabelsOf(i) {
				lbls[k] = v
			}
		}
		node := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:   names[i],
				Labels: lbls,
				// What kwok's own docs put on fake nodes; with --manage-all-nodes
				// it is informational only.
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			},
			Status: v1.NodeStatus{Capacity: res, Allocatable: res},
		}
		if _, err := tc.Kube.CoreV1().Nodes().Create(tc.Ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating node %s: %w", names[i], err)
		}
		return nil
	})
	if err != nil {
		tc.t.Fatal(err)
	}
	want := make(map[string]bool, n)
	for _, name := range names {
		want[name] = true
	}
	// More nodes take kwok longer to initialise.
	Eventually(tc.t, 30*time.Second+time.Duration(n)*5*time.Millisecond, func() (bool, string) {
		// From the apiserver's watch cache: cheap even for thousands of nodes.
		list, err := tc.Kube.CoreV1().Nodes().List(tc.Ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for i := range list.Items {
			if want[list.Items[i].Name] && nodeReady(&list.Items[i]) {
				ready++
			}
		}
		return ready == n, fmt.Sprintf("%d of %d nodes Ready (kwok log: %s)", ready, n, tc.c.path("kwok.log"))
	})
	return names
}

// nodeCreators is how many node creates CreateNodes has in flight at once.
const nodeCreators = 16

func nodeReady(node *v1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == v1.NodeReady && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

// UpdateNode reads a node, lets change edit it (CreateNodes gives every
// node labels and annotations) and writes it back.
func (tc *Test) UpdateNode(name string, change func(*v1.Node)) {
	tc.t.Helper()
	node, err := tc.Kube.CoreV1().Nodes().Get(tc.Ctx, name, metav1.GetOptions{})
	if err != nil {
		tc.t.Fatal(err)
	}
	change(node)
	if _, err := tc.Kube.CoreV1().Nodes().Update(tc.Ctx, node, metav1.UpdateOptions{}); err != nil {
		tc.t.Fatal(err)
	}
}

// CreateQueue creates an Open queue named tc.Name(name) and returns that
// name. Volcano's controller would set the Open state; here the harness
// writes it to the status subresource itself, again on the latest copy if
// the controller, when it runs, wrote the status first.
func (tc *Test) CreateQueue(name string, spec v1beta1.QueueSpec) string {
	tc.t.Helper()
	queues := tc.Volcano.SchedulingV1beta1().Queues()
	q := &v1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: tc.Name(name)}, Spec: spec}
	q, err := queues.Create(tc.Ctx, q, metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatalf("creating queue %s: %v", tc.Name(name), err)
	}
	tc.mu.Lock()
	tc.queues = append(tc.queues, q.Name)
	tc.mu.Unlock()
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest, err := queues.Get(tc.Ctx, q.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if latest.Status.State == v1beta1.QueueStateOpen {
			return nil
		}
		latest.Status.State = v1beta1.QueueStateOpen
		_, err = queues.UpdateStatus(tc.Ctx, latest, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		tc.t.Fatalf("opening queue %s: %v", q.Name, err)
	}
	return q.Name
}

// CreateHyperNode creates a HyperNode named tc.Name(name) of the given tier
// and members, and returns that name.
func (tc *Test) CreateHyperNode(name string, tier int, members ...topologyv1alpha1.MemberSpec) string {
	tc.t.Helper()
	hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: tc.Name(name)},
		Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier, Members: members}}
	if _, err := tc.Volcano.TopologyV1alpha1().HyperNodes().Create(tc.Ctx, hn, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating HyperNode %s: %v", hn.Name, err)
	}
	tc.mu.Lock()
	tc.hyperNodes = append(tc.hyperNodes, hn.Name)
	tc.mu.Unlock()
	return hn.Name
}

// CreatePriorityClass creates a PriorityClass named tc.Name(name) and
// returns that name.
func (tc *Test) CreatePriorityClass(name string, value int32) string {
	tc.t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: tc.Name(name)}, Value: value}
	if _, err := tc.Kube.SchedulingV1().PriorityClasses().Create(tc.Ctx, pc, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating priority class %s: %v", pc.Name, err)
	}
	tc.mu.Lock()
	tc.priorityClasses = append(tc.priorityClasses, pc.Name)
	tc.mu.Unlock()
	return pc.Name
}

// CreatePodGroup creates a PodGroup in the test's namespace.
func (tc *Test) CreatePodGroup(name string, spec v1beta1.PodGroupSpec) *v1beta1.PodGroup {
	tc.t.Helper()
	pg := &v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tc.Namespace}, Spec: spec}
	pg, err := tc.Volcano.SchedulingV1beta1().PodGroups(tc.Namespace).Create(tc.Ctx, pg, metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatalf("creating PodGroup %s: %v", name, err)
	}
	return pg
}

// PodGroup reads a PodGroup of the test's namespace.
func (tc *Test) PodGroup(name string) (*v1beta1.PodGroup, error) {
	return tc.Volcano.SchedulingV1beta1().PodGroups(tc.Namespace).Get(tc.Ctx, name, metav1.GetOptions{})
}

// Pods describes a set of identical pods for CreatePods.
type Pods struct {
	Prefix        string // pods are named <Prefix>-<i>
	Set           string // value of SetLabel; Prefix when empty
	Count         int
	CPU, Memory   string // requests; empty for none
	PodGroup      string // Volcano's scheduling.k8s.io/group-name annotation
	Queue         string // scheduling.volcano.sh/queue-name, for pods without a PodGroup
	PriorityClass string
	// Placement rules, copied into every pod of the set.
	Affinity *v1.Affinity
	Spread   []v1.TopologySpreadConstraint
	// Limits are the container's limits; the API server makes them the
	// requests of resources the set does not request (extended resources).
	Limits v1.ResourceList
	// Volumes, copied into every pod of the set (PersistentVolumeClaims,
	// say); nothing mounts them.
	Volumes []v1.Volume
	// ResourceClaimsOf, when set, gives the i-th pod its spec.resourceClaims
	// (ResourceClaims by resourceClaimName, say); the container lists each
	// in resources.claims.
	ResourceClaimsOf func(i int) []v1.PodResourceClaim
}

// CreatePods creates the set with schedulerName volcano, a few at a time.
func (tc *Test) CreatePods(set Pods) []*v1.Pod {
	tc.t.Helper()
	requests := v1.ResourceList{}
	if set.CPU != "" {
		requests[v1.ResourceCPU] = resource.MustParse(set.CPU)
	}
	if set.Memory != "" {
		requests[v1.ResourceMemory] = resource.MustParse(set.Memory)
	}
	annotations := map[string]string{}
	if set.PodGroup != "" {
		annotations[v1beta1.KubeGroupNameAnnotationKey] = set.PodGroup
	}
	if set.Queue != "" {
		annotations[v1beta1.QueueNameAnnotationKey] = set.Queue
	}
	if set.Set == "" {
		set.Set = set.Prefix
	}
	out := make([]*v1.Pod, set.Count)
	errs := make([]error, set.Count)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range set.Count {
		// Nothing pulls the image: kwok only pretends to run containers.
		container := v1.Container{Name: "main", Image: "pause", Resources: v1.ResourceRequirements{Requests: requests, Limits: set.Limits}}
		var claims []v1.PodResourceClaim
		if set.ResourceClaimsOf != nil {
			claims = set.ResourceClaimsOf(i)
			for _, c := range claims {
				container.Resources.Claims = append(container.Resources.Claims, v1.ResourceClaim{Name: c.Name})
			}
		}
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("%s-%d", set.Prefix, i),
				Namespace:   tc.Namespace,
				Labels:      map[string]string{SetLabel: set.Set},
				Annotations: annotations,
			},
			Spec: v1.PodSpec{
				SchedulerName:             SchedulerName,
				PriorityClassName:         set.PriorityClass,
				Affinity:                  set.Affinity,
				TopologySpreadConstraints: set.Spread,
				Volumes:                   set.Volumes,
				ResourceClaims:            claims,
				Containers:                []v1.Container{container},
			},
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = tc.Kube.CoreV1().Pods(tc.Namespace).Create(tc.Ctx, pod, metav1.CreateOptions{})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			tc.t.Fatalf("creating pod %s-%d: %v", set.Prefix, i, err)
		}
	}
	return out
}

// ListPods lists the pods of one set (see Pods.Set), or of the whole
// namespace for "".
func (tc *Test) ListPods(set string) []v1.Pod {
	tc.t.Helper()
	opts := metav1.ListOptions{}
	if set != "" {
		opts.LabelSelector = labels.Set{SetLabel: set}.String()
	}
	list, err := tc.Kube.CoreV1().Pods(tc.Namespace).List(tc.Ctx, opts)
	if err != nil {
		tc.t.Fatalf("listing pods: %v", err)
	}
	return list.Items
}

// CountPods counts the pods of a set that satisfy pred.
func (tc *Test) CountPods(set string, pred func(*v1.Pod) bool) int {
	tc.t.Helper()
	n := 0
	pods := tc.ListPods(set)
	for i := range pods {
		if pred(&pods[i]) {
			n++
		}
	}
	return n
}

// Bound reports whether a pod has a node.
func Bound(p *v1.Pod) bool { return p.Spec.NodeName != "" }

// Running reports whether a pod is bound and kwok has made it Running.
func Running(p *v1.Pod) bool { return p.Spec.NodeName != "" && p.Status.Phase == v1.PodRunning }

// Live reports whether a pod is not being deleted.
func Live(p *v1.Pod) bool { return p.DeletionTimestamp == nil }

package cache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"
	vcinformers "volcano.sh/apis/pkg/client/informers/externalversions"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Defaults for Options.
const (
	DefaultSchedulerName = "volcano"
	DefaultQueue         = "default"
	// RootQueue is the queue Volcano's hierarchy hangs every other from;
	// its scheduler creates it beside the default queue.
	RootQueue = "root"
	// defaultBindWorkers: with 16, binds trailed a fast creator by 6-8 s
	// on a saturated API server (docs/performance.md, end to end); 64
	// kept within 1.6 s. kube-scheduler binds each pod on its own
	// goroutine, without a bound.
	defaultBindWorkers = 64
)

// Options configure a Cache. Client and VCClient are required; the rest have
// defaults.
type Options struct {
	Client         kubernetes.Interface
	VCClient       vcclient.Interface
	SchedulerNames []string
	DefaultQueue   string
	Binder         Binder
	Evictor        Evictor
	StatusUpdater  StatusUpdater
	// Recorder, when set, receives Events that explain why pods and
	// PodGroups are pending.
	Recorder record.EventRecorder
	// BindWorkers bounds the binds, evictions and status writes in flight
	// at once; they share one queue.
	BindWorkers int
	// EventHandler names the handler of object events in Registry;
	// "" is the default handler, which records every event as it comes.
	EventHandler string
	// EventHandlerConfig is the handler's configuration file as
	// ReadHandlerFile read it (the handler's settings and the custom
	// informers to run); nil for none.
	EventHandlerConfig *HandlerFile
	// Registry holds the handlers and custom informers that EventHandler
	// and EventHandlerConfig name; nil holds only the default handler.
	Registry *Registry
	// RestConfig is passed to handler factories; nil when there is no API
	// server (the simulator).
	RestConfig *rest.Config
	// NodeSelector limits the nodes the cache takes (vc-scheduler's
	// --node-selector); empty takes every node.
	NodeSelector NodeSelector
	// IgnorePriorityClasses leaves PriorityClasses unwatched, so that every
	// job's priority is 0 whatever its PodGroup names (vc-scheduler's
	// --priority-class=false); pods keep the priority in their spec.
	IgnorePriorityClasses bool
	// WithoutHyperNodes leaves HyperNodes unwatched, for an API server that
	// does not serve Volcano's HyperNode CRD (topology.volcano.sh): the
	// network topology then has only the cluster top.
	WithoutHyperNodes bool
	// WithoutNumatopologies leaves Numatopologies unwatched, for an API
	// server that does not serve Volcano's Numatopology CRD
	// (nodeinfo.volcano.sh): no node then has NUMA information.
	WithoutNumatopologies bool
	// WithoutStorage leaves claims, volumes and the other storage objects
	// unwatched: the volume filters then find every claim missing. For
	// tests that build a cache by hand.
	WithoutStorage bool
	// TrackStorageCapacity watches CSIDrivers and CSIStorageCapacities so
	// that a claim is provisioned only where a driver that publishes its
	// capacity has room (vc-scheduler's --csi-storage, off by default).
	TrackStorageCapacity bool
	// WithoutDRA leaves ResourceClaims, ResourceSlices and DeviceClasses
	// unwatched, for an API server that does not serve
	// resource.k8s.io/v1beta1 (Kubernetes 1.32 serves it only when asked
	// to): pods with ResourceClaims then stay pending.
	WithoutDRA bool
}

// Cache is the scheduler's picture of the cluster, fed by informers.
type Cache struct {
	opts           Options
	schedulerNames map[string]bool

	mu              sync.Mutex
	jobs            map[api.JobID]*api.JobInfo
	nodes           map[string]*api.NodeInfo
	nodeNames       []string // sorted; nil when it must be rebuilt
	queues          map[api.QueueID]*api.QueueInfo
	priorityClasses map[string]*schedulingv1.PriorityClass
	// synthetic holds the jobs made up for pods without a PodGroup.
	synthetic map[api.JobID]bool
	// assumed holds tasks whose bind was sent but whose pod does not show the
	// node yet; releasing holds tasks whose eviction was sent.
	assumed   map[api.TaskID]string
	releasing map[api.TaskID]bool
	// pendingReasons explains, per pod key, why the last session left it
	// pending.
	pendingReasons map[string]string
	// conditionsSent holds, per pod key, the reason of a condition write
	// queued or sent that the pod does not show yet: the next session's
	// snapshot cannot see it, and must not send it again.
	conditionsSent map[string]string
	// reservations holds the external reservations by source and name,
	// reservationsOn the same by node.
	reservations   map[string]*api.ExternalReservation
	reservationsOn map[string]map[string]*api.ExternalReservation
	// podsSeen and podsRecorded hold, per pod, the resourceVersion of the
	// last event the informer delivered (dispatch) and of the last one the
	// default handler recorded (onPod): where they differ, the event
	// handler dropped it.
	podsSeen, podsRecorded map[types.UID]string
	// numa holds the nodes' NUMA information by node name (numa.go).
	numa map[string]*numaState
	// assumedPVs and assumedPVCs hold the volumes and claims binds in
	// flight wrote, until the informers show them (storage.go).
	assumedPVs  map[string]assumedVolume[*v1.PersistentVolume]
	assumedPVCs map[string]assumedVolume[*v1.PersistentVolumeClaim]
	// assumedClaims holds the ResourceClaims binds in flight allocate,
	// until the informer shows them (devices.go).
	assumedClaims map[string]assumedVolume[*resourcev1beta1.ResourceClaim]

	handler EventHandler
	custom  []CustomInformer

	informers   informers.SharedInformerFactory
	vcInformers vcinformers.SharedInformerFactory
	synced      []cache.InformerSynced

	work   chan func(context.Context)
	resync workqueue.TypedRateLimitingInterface[types.NamespacedName]
	// inflight counts queued and running binds, evictions and status
	// writes, so that Flush can wait for them.
	inflight     sync.WaitGroup
	statusWrites statusWrites
	// fenced is set by Fence: nothing more is sent to the API server.
	fenced atomic.Bool
}

// New builds a cache and registers its informers; Run starts them.
func New(opts Options) (*Cache, error) {
	if opts.Client == nil || opts.VCClient == nil {
		return nil, fmt.Errorf("cache: both a Kubernetes and a Volcano client are required")
	}
	if len(opts.SchedulerNames) == 0 {
		opts.SchedulerNames = []string{DefaultSchedulerName}
	}
	if opts.DefaultQueue == "" {
		opts.DefaultQueue = DefaultQueue
	}
	if opts.Recorder != nil {
		opts.Recorder = truncatingRecorder{opts.Recorder}
	}
	if opts.Binder == nil {
		opts.Binder = APIBinder{Client: opts.Client}
	}
	if opts.Evictor == nil {
		opts.Evictor = APIEvictor{Client: opts.Client}
	}
	if opts.StatusUpdater == nil {
		opts.StatusUpdater = APIStatusUpdater{Client: opts.Client, VCClient: opts.VCClient}
	}
	if opts.BindWorkers <= 0 {
		opts.BindWorkers = defaultBindWorkers
	}
	c := &Cache{
		opts:            opts,
		schedulerNames:  map[string]bool{},
		jobs:            map[api.JobID]*api.JobInfo{},
		nodes:           map[string]*api.NodeInfo{},
		queues:          map[api.QueueID]*api.QueueInfo{},
		priorityClasses: map[string]*schedulingv1.PriorityClass{},
		synthetic:       map[api.JobID]bool{},
		assumed:         map[api.TaskID]string{},
		releasing:       map[api.TaskID]bool{},
		pendingReasons:  map[string]string{},
		conditionsSent:  map[string]string{},
		reservations:    map[string]*api.ExternalReservation{},
		reservationsOn:  map[string]map[string]*api.ExternalReservation{},
		podsSeen:        map[types.UID]string{},
		podsRecorded:    map[types.UID]string{},
		numa:            map[string]*numaState{},
		informers:       informers.NewSharedInformerFactory(opts.Client, 0),
		vcInformers:     vcinformers.NewSharedInformerFactory(opts.VCClient, 0),
		work:            make(chan func(context.Context), 4096),
		statusWrites:    statusWrites{pending: map[string]func(context.Context){}, active: map[string]bool{}},
		resync: workqueue.NewTypedRateLimitingQueue(
			workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName]()),
	}
	for _, n := range opts.SchedulerNames {
		c.schedulerNames[n] = true
	}
	reg := opts.Registry
	if reg == nil {
		reg = NewRegistry()
	}
	h, custom, err := reg.build(opts, EventHandlerFunc(c.record))
	if err != nil {
		return nil, err
	}
	c.handler, c.custom = h, custom
	if err := c.registerHandlers(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cache) registerHandlers() error {
	var errs []error
	// A session may start once every handler has been given the initial
	// list: the registration's HasSynced says so. The informer's own
	// HasSynced only says that its store is filled, and a session started
	// then could miss a queue whose add event is still on its way (a
	// simulated session once found no queue and bound nothing).
	add := func(inf cache.SharedIndexInformer, h cache.ResourceEventHandler) {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			errs = append(errs, fmt.Errorf("registering a cache event handler: %w", err))
			return
		}
		c.synced = append(c.synced, reg.HasSynced)
	}
	add(c.informers.Core().V1().Pods().Informer(), c.dispatcher(KindPod))
	nodes := c.dispatcher(KindNode)
	if len(c.opts.NodeSelector) > 0 {
		nodes = c.opts.NodeSelector.filter(nodes)
	}
	add(c.informers.Core().V1().Nodes().Informer(), nodes)
	if !c.opts.IgnorePriorityClasses {
		add(c.informers.Scheduling().V1().PriorityClasses().Informer(), c.dispatcher(KindPriorityClass))
	}
	add(c.vcInformers.Scheduling().V1beta1().PodGroups().Informer(), c.dispatcher(KindPodGroup))
	add(c.vcInformers.Scheduling().V1beta1().Queues().Informer(), c.dispatcher(KindQueue))
	for _, ci := range c.custom {
		add(ci.Informer, c.dispatcher(ci.Kind))
	}
	// Namespaces are watched for their labels, which inter-pod affinity's
	// namespace selectors read, and for per-namespace policies.
	c.synced = append(c.synced, c.informers.Core().V1().Namespaces().Informer().HasSynced)
	// Services and controllers are watched for their selectors, which give
	// pods without spread constraints kube-scheduler's default ones;
	// PodDisruptionBudgets for the pdb plugin, ResourceQuotas for the
	// resourcequota plugin.
	for _, inf := range []cache.SharedIndexInformer{
		c.informers.Core().V1().Services().Informer(),
		c.informers.Core().V1().ReplicationControllers().Informer(),
		c.informers.Apps().V1().ReplicaSets().Informer(),
		c.informers.Apps().V1().StatefulSets().Informer(),
		c.informers.Policy().V1().PodDisruptionBudgets().Informer(),
		c.informers.Core().V1().ResourceQuotas().Informer(),
	} {
		c.synced = append(c.synced, inf.HasSynced)
	}
	// Storage objects are read whole at each snapshot, for the volume
	// filters.
	if !c.opts.WithoutStorage {
		for _, inf := range c.storageInformers() {
			c.synced = append(c.synced, inf.HasSynced)
		}
	}
	if !c.opts.WithoutDRA {
		for _, inf := range c.deviceInformers() {
			c.synced = append(c.synced, inf.HasSynced)
		}
	}
	// HyperNodes are read whole at each snapshot, which builds the
	// session's network topology from them.
	if !c.opts.WithoutHyperNodes {
		c.synced = append(c.synced, c.vcInformers.Topology().V1alpha1().HyperNodes().Informer().HasSynced)
	}
	// Numatopologies are recorded as they come: what a session assigned
	// is kept until the node's agent reports again (numa.go).
	if !c.opts.WithoutNumatopologies {
		add(c.vcInformers.Nodeinfo().V1alpha1().Numatopologies().Informer(), c.numaEvents())
	}
	// A handler that works through a queue (a Wasm handler sends events in
	// batches) has synced once its queue is empty. It is checked after the
	// registrations: once they say every initial event was delivered, an
	// empty queue means every one was handled.
	if s, ok := c.handler.(QueueingEventHandler); ok {
		c.synced = append(c.synced, s.HasSynced)
	}
	return errors.Join(errs...)
}

// Run makes sure the root and default queues exist, starts the informers and the bind
// and resync workers, and returns; they stop when ctx is done.
func (c *Cache) Run(ctx context.Context) error {
	if err := c.ensureQueues(ctx); err != nil {
		return err
	}
	c.informers.Start(ctx.Done())
	c.vcInformers.Start(ctx.Done())
	for _, ci := range c.custom {
		go ci.Informer.Run(ctx.Done())
	}
	for i := 0; i < c.opts.BindWorkers; i++ {
		go c.worker(ctx)
	}
	go c.resyncLoop(ctx)
	go func() {
		<-ctx.Done()
		c.resync.ShutDown()
	}()
	return nil
}

// WaitForCacheSync blocks until every informer, custom ones included, has
// listed its objects and the event handler has seen them; no session may
// start before.
func (c *Cache) WaitForCacheSync(ctx context.Context) bool {
	// client-go's WaitForCacheSync looks every 100 ms; a start that takes
	// 150 ms should not wait 200.
	err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(context.Context) (bool, error) {
		for _, synced := range c.synced {
			if !synced() {
				return false, nil
			}
		}
		return true, nil
	})
	return err == nil
}

// Flush waits until every bind, eviction and status write sent so far has
// completed or failed.
func (c *Cache) Flush() { c.inflight.Wait() }

// ensureQueues creates, as Volcano's scheduler does at start, the root
// queue (not reclaimable) and the default queue (reclaimable), each with
// weight 1, where they are missing, and opens them.
func (c *Cache) ensureQueues(ctx context.Context) error {
	if err := c.ensureQueue(ctx, "root", RootQueue, false); err != nil {
		return err
	}
	return c.ensureQueue(ctx, "default", c.opts.DefaultQueue, true)
}

// ensureQueue creates and opens one of those queues; role names it in
// errors.
func (c *Cache) ensureQueue(ctx context.Context, role, name string, reclaimable bool) error {
	qs := c.opts.VCClient.SchedulingV1beta1().Queues()
	if _, err := qs.Get(ctx, name, metav1.GetOptions{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fmt.Errorf("looking up the %s queue %q: %w", role, name, err)
	}
	q := &v1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1beta1.QueueSpec{Weight: 1, Reclaimable: &reclaimable},
	}
	if _, err := qs.Create(ctx, q, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the %s queue %q: %w", role, name, err)
	}
	// The Queue CRD has a status subresource, so a create sets no state;
	// Volcano's queue controller opens the queue where it runs, and may do
	// so at the same moment: a conflict is read again, not an error.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := qs.Get(ctx, name, metav1.GetOptions{})
		if err != nil || got.Status.State != "" {
			return err
		}
		got.Status.State = v1beta1.QueueStateOpen
		_, err = qs.UpdateStatus(ctx, got, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		logErr(err, "opening a queue", "queue", name)
	}
	return nil
}

func (c *Cache) worker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-c.work:
			if !c.fenced.Load() {
				f(ctx)
			}
			c.inflight.Done()
		}
	}
}

func (c *Cache) submit(f func(context.Context)) {
	if c.fenced.Load() {
		return
	}
	c.inflight.Add(1)
	c.work <- f
}

// Fence stops the cache from sending anything more to the API server:
// binds, evictions and status writes queued and not yet started are
// dropped, and later ones are not queued (the few already under way
// finish). A replica that lost its leader Lease calls it: another replica
// may be scheduling already, and this one's last decisions, made on a view
// the new leader does not share, must not land. The informers go on.
func (c *Cache) Fence() { c.fenced.Store(true) }

// PendingReasons returns, per "namespace/name", why the last session left a
// pod pending.
func (c *Cache) PendingReasons() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.pendingReasons))
	for k, v := range c.pendingReasons {
		out[k] = v
	}
	return out
}

// AllocatedHyperNodes returns, by PodGroup (namespace/name), the hypernode
// each job with a network topology was placed in.
func (c *Cache) AllocatedHyperNodes() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	for _, j := range c.jobs {
		if j.AllocatedHyperNode != "" {
			out[j.Key()] = j.AllocatedHyperNode
		}
	}
	return out
}

// sortedNodeNames returns node names in a stable order, rebuilt only after
// nodes come or go. Callers hold mu.
func (c *Cache) sortedNodeNames() []string {
	if c.nodeNames == nil {
		names := make([]string, 0, len(c.nodes))
		for n := range c.nodes {
			names = append(names, n)
		}
		sort.Strings(names)
		c.nodeNames = names
	}
	return c.nodeNames
}

func logErr(err error, msg string, kv ...any) { klog.ErrorS(err, msg, kv...) }

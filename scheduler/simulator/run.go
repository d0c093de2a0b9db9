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
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// DefaultMaxCycles bounds a run that is asked to go until nothing changes.
const DefaultMaxCycles = 100

// Options configure a simulation.
type Options struct {
	Cluster *Cluster
	Config  *conf.Config
	Plugins framework.Registry
	Actions framework.ActionRegistry
	// Cycles is the exact number of sessions to run; 0 means until a session
	// changes nothing, at most DefaultMaxCycles.
	Cycles         int
	SchedulerNames []string
	// Policies, when set, replaces Config and Plugins: each session runs
	// with the store's policy at its start, so that a reloader can swap
	// plugins and configuration between sessions.
	Policies *scheduler.PolicyStore
	// Watch runs sessions Period apart until ctx is done, whether or not
	// they change anything; Cycles is ignored, and the end of ctx ends the
	// run without an error.
	Watch  bool
	Period time.Duration
	// OnSession, when set, is called after each session with what that
	// session decided; an error it returns ends the run.
	OnSession func(*SessionResult) error
	// EventHandlers, EventHandler and EventHandlerConfig choose the cache's
	// event handler and custom informers (cache.Options); zero values are
	// the default handler.
	EventHandlers      *cache.Registry
	EventHandler       string
	EventHandlerConfig *cache.HandlerFile
	// TrackStorageCapacity checks CSI drivers' published capacity for
	// claims to provision (vc-scheduler's --csi-storage).
	TrackStorageCapacity bool
}

// Condition is the part of a PodGroup condition that does not change from
// run to run.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// PodGroupState is a PodGroup's phase and conditions after the run.
type PodGroupState struct {
	Phase      string      `json:"phase"`
	Conditions []Condition `json:"conditions"`
}

// Result is what the sessions did; its JSON form is the contract of
// `caldera simulate --output json`.
type Result struct {
	Cycles        int                      `json:"cycles"`
	Binds         map[string]string        `json:"binds"`
	Evictions     []string                 `json:"evictions"`
	PodGroups     map[string]PodGroupState `json:"podGroups"`
	Unschedulable map[string]string        `json:"unschedulable"`
	// Nominated maps an unbound pod to the node written in its
	// status.nominatedNodeName: a preemptor waiting there for its victims.
	Nominated map[string]string `json:"nominated"`
	// HyperNodes maps a PodGroup with a network topology to the hypernode
	// its tasks were placed in: the lowest holding all of them.
	HyperNodes map[string]string `json:"hyperNodes"`
	// BindAnnotations maps a bound pod to the annotations written on it
	// just before its bind (deviceshare's GPU index and predicate time).
	BindAnnotations map[string]map[string]string `json:"bindAnnotations"`
	// Volumes maps each PersistentVolumeClaim the sessions bound
	// ("namespace/name") to its volume: an existing one chosen for it, or
	// the one provisioned on the node chosen for its pod.
	Volumes map[string]string `json:"volumes"`
	// Claims maps each ResourceClaim the sessions allocated or reserved
	// ("namespace/name") to its devices, "driver/pool/device".
	Claims map[string][]string `json:"claims"`
}

// recorder wraps the cache's binder and evictor to remember what the
// sessions decided.
type recorder struct {
	binder  cache.Binder
	evictor cache.Evictor

	mu        sync.Mutex
	binds     map[string]string
	evictions []string
	// bindAnnotations are the annotations written on pods at their bind.
	bindAnnotations map[string]map[string]string
	// volumes are the claims bound at the pods' binds, and their volumes.
	volumes map[string]string
	// claims are the ResourceClaims written at the pods' binds, and their
	// devices.
	claims        map[string][]string
	sessionClaims map[string][]string
	// reservedFor reports whether a ResourceClaim ("namespace/name") is
	// reserved for the pod now.
	reservedFor func(ctx context.Context, claim string, pod types.UID) bool
	// claimVolume reads the volume a claim is bound to now.
	claimVolume func(ctx context.Context, namespace, name string) string
	changed     bool
	// The decisions since the last takeSession.
	sessionBinds     map[string]string
	sessionEvictions []string
	sessionVolumes   map[string]string
}

func (r *recorder) Bind(ctx context.Context, req cache.BindRequest) error {
	// A claim already reserved for the pod is not written at its bind:
	// only the others are reported.
	var devices map[string][]string
	if req.Claims != nil {
		devices = req.Claims.Devices()
		for key := range devices {
			if r.reservedFor(ctx, key, req.Pod.UID) {
				delete(devices, key)
			}
		}
	}
	if err := r.binder.Bind(ctx, req); err != nil {
		return err
	}
	pod, node, annotations := req.Pod, req.Node, req.Annotations
	var provisioned map[string]string
	if req.Volumes != nil {
		provisioned = map[string]string{}
		for _, c := range req.Volumes.Provision {
			provisioned[c.Namespace+"/"+c.Name] = r.claimVolume(ctx, c.Namespace, c.Name)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.binds[pod.Namespace+"/"+pod.Name] = node
	if len(annotations) > 0 {
		r.bindAnnotations[pod.Namespace+"/"+pod.Name] = annotations
	}
	r.sessionBinds[pod.Namespace+"/"+pod.Name] = node
	if req.Volumes != nil {
		for _, sb := range req.Volumes.Static {
			provisioned[sb.Claim.Namespace+"/"+sb.Claim.Name] = sb.Volume.Name
		}
		maps.Copy(r.volumes, provisioned)
		maps.Copy(r.sessionVolumes, provisioned)
	}
	maps.Copy(r.claims, devices)
	maps.Copy(r.sessionClaims, devices)
	r.changed = true
	return nil
}

func (r *recorder) Evict(ctx context.Context, pod *v1.Pod, reason string) error {
	if err := r.evictor.Evict(ctx, pod, reason); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evictions = append(r.evictions, pod.Namespace+"/"+pod.Name)
	r.sessionEvictions = append(r.sessionEvictions, pod.Namespace+"/"+pod.Name)
	r.changed = true
	return nil
}

// annotationsOf returns the bind annotations of the given pods.
func (r *recorder) annotationsOf(binds map[string]string) map[string]map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]map[string]string{}
	for pod := range binds {
		if anns, ok := r.bindAnnotations[pod]; ok {
			out[pod] = anns
		}
	}
	return out
}

func (r *recorder) takeChanged() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.changed
	r.changed = false
	return c
}

// Run builds the embedded cluster, starts the real cache on it and runs
// sessions.
func Run(ctx context.Context, opts Options) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cluster, err := newEmbedded(opts.Cluster)
	if err != nil {
		return nil, err
	}
	rec := &recorder{
		binder:  cache.APIBinder{Client: cluster.kube},
		evictor: cache.APIEvictor{Client: cluster.kube},
		binds:   map[string]string{},

		bindAnnotations: map[string]map[string]string{},
		volumes:         map[string]string{},
		sessionBinds:    map[string]string{},
		sessionVolumes:  map[string]string{},
		claims:          map[string][]string{},
		sessionClaims:   map[string][]string{},
		reservedFor: func(ctx context.Context, claim string, pod types.UID) bool {
			namespace, name, _ := strings.Cut(claim, "/")
			c, err := cluster.kube.ResourceV1beta1().ResourceClaims(namespace).Get(ctx, name, metav1.GetOptions{})
			return err == nil && slices.ContainsFunc(c.Status.ReservedFor, func(r resourcev1beta1.ResourceClaimConsumerReference) bool { return r.UID == pod })
		},
		claimVolume: func(ctx context.Context, namespace, name string) string {
			pvc, err := cluster.kube.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return ""
			}
			return pvc.Spec.VolumeName
		},
	}
	c, err := cache.New(cache.Options{
		Client:         cluster.kube,
		VCClient:       cluster.vc,
		SchedulerNames: opts.SchedulerNames,
		Binder:         rec,
		Evictor:        rec,

		TrackStorageCapacity: opts.TrackStorageCapacity,

		Registry:           opts.EventHandlers,
		EventHandler:       opts.EventHandler,
		EventHandlerConfig: opts.EventHandlerConfig,
	})
	if err != nil {
		return nil, err
	}
	if err := c.Run(ctx); err != nil {
		return nil, err
	}
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("simulator: informers did not sync")
	}
	if err := cluster.waitForWatches(ctx, catchUpTimeout); err != nil {
		return nil, err
	}
	cluster.forgetActions()
	if err := waitForPods(ctx, c, cluster); err != nil {
		return nil, err
	}
	policies := opts.Policies
	if policies == nil {
		policies = scheduler.NewPolicyStore(&scheduler.Policy{Plugins: opts.Plugins, Config: opts.Config})
	}
	sched := scheduler.NewWithPolicies(c, opts.Actions, policies)
	if p := policies.Current(); p != nil && p.Config.Metrics.Type != "" {
		klog.InfoS("The simulator measures no node usage: the configuration's metrics section is not used; a node's usage is its annotation", "annotation", NodeUsageAnnotation)
	}

	limit, untilQuiet := opts.Cycles, opts.Cycles <= 0
	if untilQuiet {
		limit = DefaultMaxCycles
	}
	res := &Result{}
	for opts.Watch || res.Cycles < limit {
		if opts.Watch && ctx.Err() != nil {
			break
		}
		before, err := podGroupPhases(ctx, cluster)
		if err != nil {
			return nil, err
		}
		if usage := opts.Cluster.nodeUsage(time.Now()); usage != nil {
			c.SetNodeUsage(usage)
		}
		policy, err := sched.RunSession()
		if err != nil {
			return nil, fmt.Errorf("session %d: %w", res.Cycles+1, err)
		}
		res.Cycles++
		c.Flush()
		if _, err := cluster.startBoundPods(ctx); err != nil {
			return nil, err
		}
		if err := waitForPods(ctx, c, cluster); err != nil {
			if opts.Watch && ctx.Err() != nil {
				break
			}
			return nil, err
		}
		cluster.forgetActions()
		after, err := podGroupPhases(ctx, cluster)
		if err != nil {
			return nil, err
		}
		changed := rec.takeChanged() || !maps.Equal(before, after)
		decided := rec.takeSession()
		if opts.OnSession != nil {
			sr, err := sessionResult(ctx, cluster, c, res.Cycles, policy, decided, rec.annotationsOf(decided.binds))
			if err != nil {
				return nil, err
			}
			if err := opts.OnSession(sr); err != nil {
				return nil, err
			}
		}
		if opts.Watch {
			select {
			case <-ctx.Done():
			case <-time.After(opts.Period):
			}
			continue
		}
		if untilQuiet && !changed {
			break
		}
	}
	// A watch ends when ctx does; what it did is still listed.
	return collect(context.WithoutCancel(ctx), cluster, c, rec, res)
}

// catchUpTimeout bounds each wait for the cache to see what the embedded
// cluster did.
const catchUpTimeout = 30 * time.Second

// waitForPods blocks until the cache shows every pod of ours where the
// embedded API server has it, and no pod the API server no longer has, so
// that the next session sees the last one's effects.
func waitForPods(ctx context.Context, c *cache.Cache, e *embedded) error {
	pods, err := e.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	want := map[api.TaskID]*v1.Pod{}
	for i := range pods.Items {
		want[api.TaskID(pods.Items[i].UID)] = &pods.Items[i]
	}
	phases, err := podGroupPhases(ctx, e)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(catchUpTimeout)
	for {
		behind := cacheBehind(c.TaskStates(), want, c.DroppedPods())
		if behind == "" {
			behind = podGroupsBehind(c.PodGroupPhases(), phases)
		}
		if behind == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("simulator: the cache did not catch up with %s", behind)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// podGroupsBehind describes a PodGroup whose phase in the cache differs
// from the API server's, or returns "".
func podGroupsBehind(have, want map[string]string) string {
	for key, phase := range want {
		if got, ok := have[key]; ok && got != phase {
			return fmt.Sprintf("PodGroup %s (API: %s; cache: %s)", key, phase, got)
		}
	}
	return ""
}

// cacheBehind describes a pod the cache shows differently from the API
// server, or returns "".
func cacheBehind(have map[api.TaskID]cache.TaskView, want map[api.TaskID]*v1.Pod, dropped map[api.TaskID]bool) string {
	for uid, p := range want {
		v, ok := have[uid]
		if !ok && (p.Spec.NodeName == "" || dropped[uid]) {
			// Not ours and unplaced, or kept out by the event handler:
			// the cache rightly ignores it.
			continue
		}
		wantStatus := api.NewTaskInfo(p).Status
		if !ok {
			return fmt.Sprintf("pod %s/%s (API: %s on %q; cache: absent)", p.Namespace, p.Name, wantStatus, p.Spec.NodeName)
		}
		if v.Node != p.Spec.NodeName || v.Status != wantStatus {
			return fmt.Sprintf("pod %s/%s (API: %s on %q; cache: %s on %q)", p.Namespace, p.Name, wantStatus, p.Spec.NodeName, v.Status, v.Node)
		}
	}
	for uid, v := range have {
		if _, ok := want[uid]; !ok {
			return fmt.Sprintf("pod with UID %s (API: deleted; cache: %s on %q)", uid, v.Status, v.Node)
		}
	}
	return ""
}

func podGroupPhases(ctx context.Context, e *embedded) (map[string]string, error) {
	list, err := e.vc.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, pg := range list.Items {
		out[pg.Namespace+"/"+pg.Name] = string(pg.Status.Phase)
	}
	return out, nil
}

func collect(ctx context.Context, e *embedded, c *cache.Cache, rec *recorder, res *Result) (*Result, error) {
	rec.mu.Lock()
	res.Binds = rec.binds
	res.BindAnnotations = rec.bindAnnotations
	res.Volumes = rec.volumes
	res.Claims = rec.claims
	res.Evictions = append([]string{}, rec.evictions...)
	rec.mu.Unlock()
	sort.Strings(res.Evictions)

	list, err := e.vc.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	res.PodGroups = map[string]PodGroupState{}
	for _, pg := range list.Items {
		res.PodGroups[pg.Namespace+"/"+pg.Name] = podGroupState(&pg)
	}

	pods, err := e.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	res.HyperNodes = c.AllocatedHyperNodes()
	reasons := c.PendingReasons()
	res.Unschedulable, res.Nominated = map[string]string{}, map[string]string{}
	for _, p := range pods.Items {
		key := p.Namespace + "/" + p.Name
		if p.Spec.NodeName != "" {
			continue
		}
		if r, ok := reasons[key]; ok {
			res.Unschedulable[key] = r
		}
		if n := p.Status.NominatedNodeName; n != "" {
			res.Nominated[key] = n
		}
	}
	return res, nil
}

func podGroupState(pg *v1beta1.PodGroup) PodGroupState {
	s := PodGroupState{Phase: string(pg.Status.Phase), Conditions: []Condition{}}
	for _, c := range pg.Status.Conditions {
		s.Conditions = append(s.Conditions, Condition{
			Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
		})
	}
	return s
}

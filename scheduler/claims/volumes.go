package claims

import (
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/volumes"
)

// Volume binding argument keys, as Volcano names them.
const (
	VolumeBindingTimeoutKey = "volumebinding.bindTimeoutSeconds"
	VolumeBindingWeightKey  = "volumebinding.weight"
	VolumeBindingShapeKey   = "volumebinding.shape"
)

// volumeArgs are the volume binding arguments. A shape turns the volume
// binding score on (kube-scheduler's VolumeCapacityPriority, which
// Volcano reads behind a feature gate that is off by default: here the
// shape itself is the switch).
type volumeArgs struct {
	timeout time.Duration
	weight  int
	scorer  *volumes.Scorer
}

func parseVolumeArgs(args framework.Arguments) (volumeArgs, error) {
	va := volumeArgs{timeout: volumes.DefaultBindTimeout, weight: 1}
	seconds := int(volumes.DefaultBindTimeout / time.Second)
	if err := args.Int(VolumeBindingTimeoutKey, &seconds); err != nil {
		return va, err
	}
	if seconds < 0 {
		return va, fmt.Errorf("argument %q: %d is negative", VolumeBindingTimeoutKey, seconds)
	}
	va.timeout = time.Duration(seconds) * time.Second
	if err := args.Int(VolumeBindingWeightKey, &va.weight); err != nil {
		return va, err
	}
	raw, ok := args[VolumeBindingShapeKey]
	if !ok || raw == nil {
		return va, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return va, fmt.Errorf("argument %q: expected a list of {utilization, score}, got %T", VolumeBindingShapeKey, raw)
	}
	shape := make([]volumes.ShapePoint, 0, len(items))
	for i, item := range items {
		m, ok := framework.AsArguments(item)
		if !ok {
			return va, fmt.Errorf("argument %q[%d]: expected {utilization, score}, got %T", VolumeBindingShapeKey, i, item)
		}
		if err := m.RejectUnknown("utilization", "score"); err != nil {
			return va, fmt.Errorf("argument %q[%d]: %w", VolumeBindingShapeKey, i, err)
		}
		var p volumes.ShapePoint
		if err := m.Int("utilization", &p.Utilization); err != nil {
			return va, fmt.Errorf("argument %q[%d]: %w", VolumeBindingShapeKey, i, err)
		}
		if err := m.Int("score", &p.Score); err != nil {
			return va, fmt.Errorf("argument %q[%d]: %w", VolumeBindingShapeKey, i, err)
		}
		shape = append(shape, p)
	}
	scorer, err := volumes.NewScorer(shape)
	if err != nil {
		return va, fmt.Errorf("argument %q: %w", VolumeBindingShapeKey, err)
	}
	va.scorer = scorer
	return va, nil
}

// volumeState is the session's volume state and each pod's claims as
// PrePredicate read them.
type volumeState struct {
	vol    *volumes.Session
	mu     sync.Mutex
	claims map[*v1.Pod]*volumes.PodClaims
}

func (c *Claims) openVolumes(ssn *framework.Session) {
	on := c.checks
	if !on.Binding && !on.Zone && !on.Limits {
		c.volumes = nil
		return
	}
	c.volumes = &volumeState{vol: volumes.NewSession(ssn.Storage), claims: map[*v1.Pod]*volumes.PodClaims{}}
}

// claimsOf reads a pod's claims once per session (PrePredicate normally
// does; a Predicate call without one reads them itself).
func (c *Claims) claimsOf(pod *v1.Pod) (*volumes.PodClaims, *volumes.Rejection) {
	vs := c.volumes
	vs.mu.Lock()
	pc, ok := vs.claims[pod]
	vs.mu.Unlock()
	if ok {
		return pc, nil
	}
	pc, rej := vs.vol.PreFilter(pod, c.checks)
	if rej != nil {
		return nil, rej
	}
	vs.mu.Lock()
	vs.claims[pod] = pc
	vs.mu.Unlock()
	return pc, nil
}

// volumePrePredicate is the volume checks' PrePredicate, worded as
// Volcano words a failed pre-predicate.
func (c *Claims) volumePrePredicate(pod *v1.Pod) *framework.Status {
	if c.volumes == nil || len(pod.Spec.Volumes) == 0 {
		return nil
	}
	vs := c.volumes
	// Each PrePredicate reads the claims afresh: a placement since the
	// last one may have taken a volume this pod was offered.
	pc, rej := vs.vol.PreFilter(pod, c.checks)
	if rej != nil {
		return &framework.Status{Code: statusCode(rej.Code), Reasons: []string{"plugin " + rej.Plugin + " pre-predicates failed " + rej.Message()}}
	}
	vs.mu.Lock()
	vs.claims[pod] = pc
	vs.mu.Unlock()
	return nil
}

func statusCode(c volumes.Code) framework.Code {
	switch c {
	case volumes.Unschedulable:
		return framework.Unschedulable
	case volumes.Unresolvable:
		return framework.UnschedulableAndUnresolvable
	}
	return framework.Error
}

// volumeClaims returns the pod's claims for the node filters; nil when the
// pod has none to check.
func (c *Claims) volumeClaims(task *api.TaskInfo) (*volumes.PodClaims, *framework.Status) {
	if c.volumes == nil || len(task.Pod.Spec.Volumes) == 0 {
		return nil, nil
	}
	pc, rej := c.claimsOf(task.Pod)
	if rej != nil {
		return nil, &framework.Status{Code: statusCode(rej.Code), Reasons: rej.Reasons}
	}
	return pc, nil
}

// volumeLimitsFilter is NodeVolumeLimits' filter on one node: Unschedulable,
// so its reason adds to the others.
func (c *Claims) volumeLimitsFilter(pc *volumes.PodClaims, node *api.NodeInfo) *volumes.Rejection {
	if pc == nil || node.Node == nil {
		return nil
	}
	return c.volumes.vol.FilterLimits(pc, node.Node, func(yield func(*v1.Pod)) {
		for _, t := range node.Tasks {
			if t.Pod != nil {
				yield(t.Pod)
			}
		}
	})
}

// reserveVolumes reserves, for the rest of the session, the volumes the
// pod's unbound claims take on its node, and records what the bind is to
// write; it fails when they no longer fit there.
func (c *Claims) reserveVolumes(task *api.TaskInfo) error {
	if c.volumes == nil || task.Pod == nil || task.BindVolumes != nil || !c.checks.Binding {
		return nil
	}
	node := c.nodes[task.NodeName]
	if node == nil || node.Node == nil {
		return nil
	}
	pc, rej := c.claimsOf(task.Pod)
	if rej != nil || !pc.Binds() {
		if rej != nil {
			return fmt.Errorf("volumes of pod %s: %s", task.Key(), rej.Message())
		}
		return nil
	}
	found, rej := c.volumes.vol.FilterBinding(pc, node.Node)
	if rej != nil {
		return fmt.Errorf("volumes of pod %s on node %s: %s", task.Key(), task.NodeName, rej.Message())
	}
	reserved, err := c.volumes.vol.Reserve(found, task.NodeName)
	if err != nil {
		return fmt.Errorf("volumes of pod %s on node %s: %w", task.Key(), task.NodeName, err)
	}
	if reserved != nil {
		reserved.Timeout = c.volumeArgs.timeout
		task.BindVolumes = reserved
	}
	return nil
}

// releaseVolumes takes back what reserveVolumes reserved for the task.
func (c *Claims) releaseVolumes(task *api.TaskInfo) {
	if task.BindVolumes == nil || c.volumes == nil {
		return
	}
	c.volumes.vol.Unreserve(task.BindVolumes)
	task.BindVolumes = nil
}

// logReserveFailure is for placements whose refusal cannot be heard.
func logReserveFailure(task *api.TaskInfo, err error) {
	klog.ErrorS(err, "Volume reservation failed after the predicate passed; the pod is bound without its volumes decided and will wait for them on the node", "pod", task.Key())
}

// BatchNodeOrder is the volume binding score, when a shape is configured:
// per node, how full the pod's claims make the static volumes chosen
// there, times volumebinding.weight.
func (c *Claims) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64) error {
	if c.volumeArgs.scorer == nil || c.volumes == nil || task.Pod == nil {
		return nil
	}
	pc, st := c.volumeClaims(task)
	if st != nil || !pc.Binds() {
		return nil
	}
	for i, n := range nodes {
		if n.Node == nil {
			continue
		}
		found, rej := c.volumes.vol.FilterBinding(pc, n.Node)
		if rej != nil {
			continue
		}
		scores[i] += float64(c.volumeArgs.scorer.Score(found) * int64(c.volumeArgs.weight))
	}
	return nil
}

// volumesUnresolvable reports whether a volume filter or the device
// filter rules the node out for good, for preempt and reclaim, which check
// no resources first.
func (c *Claims) volumesUnresolvable(task *api.TaskInfo, node *api.NodeInfo) bool {
	if dc, st := c.deviceClaims(task.Pod); st != nil {
		return st.Code == framework.UnschedulableAndUnresolvable
	} else if dc != nil {
		if st := c.deviceFits(dc, node); st != nil && st.Code == framework.UnschedulableAndUnresolvable {
			return true
		}
	}
	pc, st := c.volumeClaims(task)
	if st != nil {
		return st.Code == framework.UnschedulableAndUnresolvable
	}
	if pc == nil || node.Node == nil {
		return false
	}
	if rej := c.volumeLimitsFilter(pc, node); rej != nil && rej.Code == volumes.Unresolvable {
		return true
	}
	if rej := c.volumes.vol.FilterZone(pc, node.Node); rej != nil {
		return rej.Code == volumes.Unresolvable
	}
	if pc.Binds() {
		if _, rej := c.volumes.vol.FilterBinding(pc, node.Node); rej != nil {
			return rej.Code == volumes.Unresolvable
		}
	}
	return false
}

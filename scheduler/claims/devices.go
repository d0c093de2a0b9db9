package claims

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/dra"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// DRAFilterTimeoutKey bounds one node's device search, as Volcano names it.
const DRAFilterTimeoutKey = "dynamicresources.filterTimeoutSeconds"

// defaultDRAFilterTimeout is Volcano's default for DRAFilterTimeoutKey.
const defaultDRAFilterTimeout = 10 * time.Second

func parseDRAArgs(args framework.Arguments) (time.Duration, error) {
	seconds := int(defaultDRAFilterTimeout / time.Second)
	if err := args.Int(DRAFilterTimeoutKey, &seconds); err != nil {
		return 0, err
	}
	// As in Volcano, a negative value keeps the default; 0 means no limit.
	if seconds < 0 {
		return defaultDRAFilterTimeout, nil
	}
	return time.Duration(seconds) * time.Second, nil
}

// deviceState is the session's dynamic resource allocation state and
// each pod's claims as PrePredicate read them.
type deviceState struct {
	dra    *dra.Session
	mu     sync.Mutex
	claims map[*v1.Pod]*dra.PodClaims
}

func (c *Claims) openDevices(ssn *framework.Session) {
	c.devices = nil
	if !c.dra {
		return
	}
	d := ssn.Devices
	if d == nil {
		d = &api.Devices{}
	}
	sess := dra.NewSession(dra.NewSnapshot(d.Claims, d.Slices, d.Classes))
	sess.SetSearchTimeout(c.draTimeout)
	c.devices = &deviceState{dra: sess, claims: map[*v1.Pod]*dra.PodClaims{}}
}

// devicePrePredicate is DynamicResources' PrePredicate, worded as Volcano
// words a failed pre-predicate.
func (c *Claims) devicePrePredicate(pod *v1.Pod) *framework.Status {
	if c.devices == nil || len(pod.Spec.ResourceClaims) == 0 {
		return nil
	}
	pc, err := c.devices.dra.PreFilter(pod)
	if err != nil {
		return &framework.Status{Code: draCode(err), Reasons: []string{"plugin DynamicResources pre-predicates failed " + err.Error()}}
	}
	c.devices.mu.Lock()
	c.devices.claims[pod] = pc
	c.devices.mu.Unlock()
	return nil
}

// deviceClaims returns the pod's claims for the node filter: read at
// PrePredicate, or now when no PrePredicate ran.
func (c *Claims) deviceClaims(pod *v1.Pod) (*dra.PodClaims, *framework.Status) {
	if c.devices == nil || len(pod.Spec.ResourceClaims) == 0 {
		return nil, nil
	}
	c.devices.mu.Lock()
	pc, ok := c.devices.claims[pod]
	c.devices.mu.Unlock()
	if ok {
		return pc, nil
	}
	pc, err := c.devices.dra.PreFilter(pod)
	if err != nil {
		return nil, &framework.Status{Code: draCode(err), Reasons: []string{err.Error()}}
	}
	c.devices.mu.Lock()
	c.devices.claims[pod] = pc
	c.devices.mu.Unlock()
	return pc, nil
}

// deviceFilter is DynamicResources' filter on one node: whether the pod's
// claims can have their devices there, and which.
func (c *Claims) deviceFilter(pc *dra.PodClaims, node *api.NodeInfo) (*dra.Allocation, *framework.Status) {
	if pc == nil || node.Node == nil {
		return nil, nil
	}
	// The session bounds each device search with draTimeout; most calls
	// reuse an earlier search's answer and need no timer.
	alloc, err := c.devices.dra.Filter(context.Background(), pc, node.Node)
	if err != nil {
		return nil, draStatus(err)
	}
	return alloc, nil
}

// deviceFits is deviceFilter's status alone, for the node filter: the
// devices matter only on the node the task is placed on.
func (c *Claims) deviceFits(pc *dra.PodClaims, node *api.NodeInfo) *framework.Status {
	if pc == nil || node.Node == nil {
		return nil
	}
	if err := c.devices.dra.Fits(context.Background(), pc, node.Node); err != nil {
		return draStatus(err)
	}
	return nil
}

func draStatus(err error) *framework.Status {
	return &framework.Status{Code: draCode(err), Reasons: []string{err.Error()}}
}

func draCode(err error) framework.Code {
	switch dra.CodeOf(err) {
	case dra.Unschedulable:
		return framework.Unschedulable
	case dra.UnschedulableAndUnresolvable:
		return framework.UnschedulableAndUnresolvable
	}
	return framework.Error
}

// reserveDevices gives the task's claims their devices on its node for
// the rest of the session and records what the bind is to write.
func (c *Claims) reserveDevices(task *api.TaskInfo) error {
	if c.devices == nil || task.Pod == nil || task.BindClaims != nil || len(task.Pod.Spec.ResourceClaims) == 0 {
		return nil
	}
	node := c.nodes[task.NodeName]
	if node == nil {
		return nil
	}
	pc, st := c.deviceClaims(task.Pod)
	if st != nil {
		return fmt.Errorf("claims of pod %s: %s", task.Key(), st.Message())
	}
	if pc == nil {
		return nil
	}
	alloc, st := c.deviceFilter(pc, node)
	if st != nil {
		return fmt.Errorf("claims of pod %s on node %s: %s", task.Key(), task.NodeName, st.Message())
	}
	if err := c.devices.dra.Reserve(task.Pod, pc, task.NodeName, alloc); err != nil {
		return fmt.Errorf("claims of pod %s on node %s: %w", task.Key(), task.NodeName, err)
	}
	task.BindClaims = alloc
	return nil
}

// releaseDevices takes back what reserveDevices reserved.
func (c *Claims) releaseDevices(task *api.TaskInfo) {
	if task.BindClaims == nil || c.devices == nil {
		return
	}
	c.devices.dra.Unreserve(task.Pod)
	task.BindClaims = nil
}

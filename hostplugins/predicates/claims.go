package predicates

import (
	"fmt"
	"time"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/volumes"
)

// Claims is the predicates plugin's volume and device checks
// (VolumeBinding, VolumeZone, NodeVolumeLimits, DynamicResources) with
// what goes with them: the reservations a placement makes and the volume
// binding score. The native plugin runs them between its own filters; the
// Wasm runtime runs them for a module that declares claimChecks (ABI
// 1.10), which gets their outcome per node (Check) and places it among its
// own filters.
type Claims struct {
	checks volumes.Checks
	dra    bool

	// volumeArgs are the volume binding arguments; volumes the session's
	// volume state, nil when every volume check is off (volumes.go).
	volumeArgs volumeArgs
	volumes    *volumeState
	// draTimeout bounds one node's device search; devices is the
	// session's dynamic resource allocation state, nil when the filter is
	// off (devices.go).
	draTimeout time.Duration
	devices    *deviceState
	// nodes are the session's nodes by name, for reservations.
	nodes map[string]*api.NodeInfo
}

// NewClaims reads the checks' arguments with Volcano's defaults: the four
// flags, volumebinding.* and dynamicresources.filterTimeoutSeconds.
func NewClaims(args framework.Arguments) (*Claims, error) {
	a, err := ParseArgs(args)
	if err != nil {
		return nil, err
	}
	return newClaims(a, args)
}

func newClaims(a Args, args framework.Arguments) (*Claims, error) {
	va, err := parseVolumeArgs(args)
	if err != nil {
		return nil, err
	}
	draTimeout, err := parseDRAArgs(args)
	if err != nil {
		return nil, err
	}
	return &Claims{
		checks:     volumes.Checks{Binding: a.VolumeBinding, Zone: a.VolumeZone, Limits: a.NodeVolumeLimits},
		dra:        a.DynamicResourceAllocation,
		volumeArgs: va,
		draTimeout: draTimeout,
	}, nil
}

// OnSessionOpen starts the session's volume and device state.
func (c *Claims) OnSessionOpen(ssn *framework.Session) {
	c.nodes = ssn.Nodes
	c.openVolumes(ssn)
	c.openDevices(ssn)
}

// OnSessionClose drops it.
func (c *Claims) OnSessionClose() {
	c.nodes, c.volumes, c.devices = nil, nil, nil
}

// Scores says the volume binding score is on: a shape is configured.
func (c *Claims) Scores() bool { return c.volumeArgs.scorer != nil }

// PrePredicate is the checks' PrePredicate: VolumeBinding's, then
// DynamicResources', worded as Volcano words a failed pre-predicate.
func (c *Claims) PrePredicate(task *api.TaskInfo) *framework.Status {
	if task.Pod == nil {
		return nil
	}
	if st := c.volumePrePredicate(task.Pod); st != nil {
		return st
	}
	return c.devicePrePredicate(task.Pod)
}

// Stage says which check a ClaimCheck reports, in the order they run.
type Stage int32

const (
	// StageClaims: the pod's volume claims could not be read. The native
	// plugin reports it after NodePorts.
	StageClaims Stage = iota
	// StageLimits is NodeVolumeLimits, after InterPodAffinity.
	StageLimits
	// StageZone is VolumeZone, after NodeVolumeLimits.
	StageZone
	// StageBinding is VolumeBinding, after PodTopologySpread.
	StageBinding
	// StageDevices is DynamicResources, after VolumeBinding.
	StageDevices
)

// ClaimCheck is one failed check on a node.
type ClaimCheck struct {
	Stage   Stage
	Code    framework.Code
	Reasons []string
}

// Ends says the check stops the node's filtering: every failure but
// NodeVolumeLimits' Unschedulable one, whose reasons add to the rest.
func (c ClaimCheck) Ends() bool {
	return c.Stage != StageLimits || c.Code != framework.Unschedulable
}

// HasChecks says the task has something for the checks: a volume the
// volume checks read or a ResourceClaim with the device filter on.
func (c *Claims) HasChecks(task *api.TaskInfo) bool {
	if task.Pod == nil {
		return false
	}
	return (c.volumes != nil && len(task.Pod.Spec.Volumes) > 0) || (c.devices != nil && len(task.Pod.Spec.ResourceClaims) > 0)
}

// Check runs the checks on one node as the native plugin's Predicate runs
// them: the failures in order, ending at the first that ends the node's
// filtering. ruledOut says some check rules the node out for good,
// whatever the order: Volcano's preempt and reclaim read that where the
// node lacks the resources.
func (c *Claims) Check(task *api.TaskInfo, node *api.NodeInfo) (failed []ClaimCheck, ruledOut bool) {
	if task.Pod == nil {
		return nil, false
	}
	failed = c.check(task, node)
	// Where every check passes none rules the node out; otherwise the
	// native plugin's own answer, which looks at the devices first.
	return failed, len(failed) > 0 && c.volumesUnresolvable(task, node)
}

func (c *Claims) check(task *api.TaskInfo, node *api.NodeInfo) (failed []ClaimCheck) {
	pc, st := c.volumeClaims(task)
	if st != nil {
		return []ClaimCheck{{StageClaims, st.Code, st.Reasons}}
	}
	if pc != nil {
		if rej := c.volumeLimitsFilter(pc, node); rej != nil {
			failed = append(failed, ClaimCheck{StageLimits, statusCode(rej.Code), rej.Reasons})
			if rej.Code != volumes.Unschedulable {
				return failed
			}
		}
		if rej := c.volumes.vol.FilterZone(pc, node.Node); rej != nil {
			return append(failed, ClaimCheck{StageZone, statusCode(rej.Code), rej.Reasons})
		}
	}
	if pc.Binds() {
		if _, rej := c.volumes.vol.FilterBinding(pc, node.Node); rej != nil {
			return append(failed, ClaimCheck{StageBinding, statusCode(rej.Code), rej.Reasons})
		}
	}
	if dc, st := c.deviceClaims(task.Pod); st != nil {
		return append(failed, ClaimCheck{StageDevices, st.Code, st.Reasons})
	} else if dc != nil {
		if st := c.deviceFits(dc, node); st != nil {
			return append(failed, ClaimCheck{StageDevices, st.Code, st.Reasons})
		}
	}
	return failed
}

// Reserve reserves, for the rest of the session, the volumes and devices
// the task's claims take on its node, and records what its bind is to
// write; it fails when they no longer fit there.
func (c *Claims) Reserve(task *api.TaskInfo) error {
	if err := c.reserveVolumes(task); err != nil {
		return err
	}
	return c.reserveDevices(task)
}

// ReserveOrLog is Reserve for placements whose refusal cannot be heard.
func (c *Claims) ReserveOrLog(task *api.TaskInfo) {
	if err := c.reserveVolumes(task); err != nil {
		logReserveFailure(task, err)
	}
	if err := c.reserveDevices(task); err != nil {
		logReserveFailure(task, err)
	}
}

// Release takes back what Reserve reserved for the task.
func (c *Claims) Release(task *api.TaskInfo) {
	c.releaseVolumes(task)
	c.releaseDevices(task)
}

// String names the stage as docs/abi.md does.
func (s Stage) String() string {
	switch s {
	case StageClaims:
		return "claims"
	case StageLimits:
		return "limits"
	case StageZone:
		return "zone"
	case StageBinding:
		return "binding"
	case StageDevices:
		return "devices"
	}
	return fmt.Sprintf("stage %d", int32(s))
}

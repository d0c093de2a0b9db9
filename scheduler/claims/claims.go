// Package claims is the predicates plugin's volume and device checks
// (kube-scheduler's VolumeBinding, VolumeZone, NodeVolumeLimits and
// DynamicResources as Volcano v1.15 runs them) with what goes with them:
// the reservations a placement makes, what its bind is to write, and the
// volume binding score. The native predicates plugin runs them between its
// own filters; the Wasm runtime runs them for a module that declares
// claimChecks (ABI 1.10), which gets their outcome per node and places it
// among its own filters. Both place them with Apply, by Stage.
package claims

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/volumes"
)

// Flag keys, as Volcano names them: the checks each turns on.
const (
	NodeVolumeLimitsEnableKey          = "predicate.NodeVolumeLimitsEnable"
	VolumeZoneEnableKey                = "predicate.VolumeZoneEnable"
	VolumeBindingEnableKey             = "predicate.VolumeBindingEnable"
	DynamicResourceAllocationEnableKey = "predicate.DynamicResourceAllocationEnable"
)

// Claims is the checks' state for one plugin: its arguments, and the
// session's volume and device state while a session is open.
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

// New reads the checks' arguments with Volcano's defaults (every flag on):
// the four flags, volumebinding.* and dynamicresources.filterTimeoutSeconds.
// A value of the wrong type is an error naming its key.
func New(args framework.Arguments) (*Claims, error) {
	c := &Claims{checks: volumes.Checks{Binding: true, Zone: true, Limits: true}, dra: true}
	for _, f := range []struct {
		key string
		dst *bool
	}{
		{NodeVolumeLimitsEnableKey, &c.checks.Limits},
		{VolumeZoneEnableKey, &c.checks.Zone},
		{VolumeBindingEnableKey, &c.checks.Binding},
		{DynamicResourceAllocationEnableKey, &c.dra},
	} {
		if err := args.Bool(f.key, f.dst); err != nil {
			return nil, err
		}
	}
	va, err := parseVolumeArgs(args)
	if err != nil {
		return nil, err
	}
	draTimeout, err := parseDRAArgs(args)
	if err != nil {
		return nil, err
	}
	c.volumeArgs, c.draTimeout = va, draTimeout
	return c, nil
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
// volume checks read or a ResourceClaim with the device filter on. Nearly
// every pod has a service-account token volume, which none of them reads.
func (c *Claims) HasChecks(task *api.TaskInfo) bool {
	if task.Pod == nil {
		return false
	}
	if c.devices != nil && len(task.Pod.Spec.ResourceClaims) > 0 {
		return true
	}
	if c.volumes != nil {
		for i := range task.Pod.Spec.Volumes {
			if attachable(&task.Pod.Spec.Volumes[i]) {
				return true
			}
		}
	}
	return false
}

// attachable reports whether the volume checks may read a volume: any
// kind but those the kubelet makes on the node itself, so that a kind
// added to Kubernetes later is checked rather than skipped.
func attachable(v *v1.Volume) bool {
	s := &v.VolumeSource
	return s.EmptyDir == nil && s.HostPath == nil && s.Secret == nil && s.ConfigMap == nil &&
		s.Projected == nil && s.DownwardAPI == nil && s.GitRepo == nil && s.Image == nil
}

// Check runs the checks on one node in the order Volcano's predicates
// runs them: the failures in order, ending at the first that ends the
// node's filtering. Nil: every check passes.
func (c *Claims) Check(task *api.TaskInfo, node *api.NodeInfo) (failed []ClaimCheck) {
	if !c.HasChecks(task) {
		return nil
	}
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

// RuledOut reports whether a check rules the node out for good, whatever
// the order: Volcano's preempt and reclaim, which check no resources, read
// it where the node lacks them. Where every check passes, none does.
func (c *Claims) RuledOut(task *api.TaskInfo, node *api.NodeInfo) bool {
	return c.HasChecks(task) && c.volumesUnresolvable(task, node)
}

// Apply adds the reasons of the failed checks of stages from to to
// (inclusive) to reasons, as the native plugin gathers a node's reasons,
// and reports whether one of them ends the node's filtering, with its
// code.
func Apply(failed []ClaimCheck, from, to Stage, reasons []string) ([]string, framework.Code, bool) {
	for _, f := range failed {
		if f.Stage < from || f.Stage > to {
			continue
		}
		reasons = append(reasons, f.Reasons...)
		if f.Ends() {
			return reasons, f.Code, true
		}
	}
	return reasons, framework.Unschedulable, false
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

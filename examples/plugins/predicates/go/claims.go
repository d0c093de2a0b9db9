package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// The scheduler runs Volcano's volume and device checks (VolumeBinding,
// VolumeZone, NodeVolumeLimits, DynamicResources) for the port: they read
// PersistentVolumes, CSINodes and ResourceSlices and evaluate CEL, which a
// module cannot (docs/abi.md, "Volumes and devices"). PredicateBatch places
// their outcome where the native plugin runs them: a claim that cannot be
// read after NodePorts, the limits and zone after InterPodAffinity,
// binding and devices after PodTopologySpread.

// ClaimChecks asks the scheduler for the checks; it reads the same flags
// the native plugin does from the port's arguments.
func (*plugin) ClaimChecks() bool { return true }

// claimChecks appends the reasons of nc's failed checks of stages from to
// to (inclusive) to reason, and reports whether one of them ends the
// node's check, with its code.
func claimChecks(nc *caldera.NodeClaims, from, to caldera.ClaimStage, reason string) (string, caldera.Code, bool) {
	if nc == nil {
		return reason, caldera.Unschedulable, false
	}
	for i := range nc.Checks {
		c := &nc.Checks[i]
		if st := caldera.ClaimStage(c.Stage); st < from || st > to {
			continue
		}
		for _, r := range c.Reasons {
			reason = join(reason, r)
		}
		if c.Ends() {
			return reason, caldera.Code(c.Code), true
		}
	}
	return reason, caldera.Unschedulable, false
}

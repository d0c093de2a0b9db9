//! The scheduler runs Volcano's volume and device checks (VolumeBinding,
//! VolumeZone, NodeVolumeLimits, DynamicResources) for the port: they read
//! PersistentVolumes, CSINodes and ResourceSlices and evaluate CEL, which a
//! module cannot (docs/abi.md, "Volumes and devices"). `predicate_batch`
//! places their outcome where the native plugin runs them: a claim that
//! cannot be read after NodePorts, the limits and zone after
//! InterPodAffinity, binding and devices after PodTopologySpread.

use caldera::{ClaimStage, Code, NodeClaims};

use crate::join;

/// A check's stage in the native plugin's order, the ABI's number.
fn stage_number(s: ClaimStage) -> i32 {
    match s {
        ClaimStage::Claims => 0,
        ClaimStage::Limits => 1,
        ClaimStage::Zone => 2,
        ClaimStage::Binding => 3,
        ClaimStage::Devices => 4,
        ClaimStage::Other(n) => n,
        // A stage this port cannot name comes after those it knows.
        _ => i32::MAX,
    }
}

/// Appends to `reason` the reasons of the node's failed checks of stages
/// `from` to `to` (inclusive), and returns the code of the one that ends
/// the node's check, if one does.
pub(crate) fn claim_checks(nc: Option<&NodeClaims>, from: ClaimStage, to: ClaimStage, reason: &mut String) -> Option<Code> {
    let (from, to) = (stage_number(from), stage_number(to));
    for c in nc?.checks.iter().filter(|c| (from..=to).contains(&stage_number(c.stage))) {
        for r in &c.reasons {
            join(reason, r);
        }
        if c.ends() {
            return Some(c.code);
        }
    }
    None
}

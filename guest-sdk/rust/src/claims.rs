//! Volumes and devices (ABI 1.10; docs/abi.md, sections 5 and 6, "Volumes
//! and devices"): what the view says of pods' claims and nodes' volume
//! limits, and the outcome of the scheduler's own volume and device checks,
//! which `predicate_batch` brings to a plugin that declares
//! [`Plugin::CLAIM_CHECKS`](crate::Plugin::CLAIM_CHECKS). The scheduler runs
//! those checks because a guest cannot: they read PersistentVolumes,
//! StorageClasses, CSINodes and ResourceSlices, and kube's device allocator
//! evaluates CEL.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::hooks::Code;
use crate::msgpack::{DecodeError, Reader, Result};
use crate::view::{nullable, Handle, View};

/// The claims of one task's pod: its PersistentVolumeClaims, in volume
/// order, and its ResourceClaims, in `spec.resourceClaims` order.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct TaskClaims {
    pub task: Handle,
    #[serde(deserialize_with = "nullable")]
    pub volumes: Vec<VolumeClaim>,
    #[serde(deserialize_with = "nullable")]
    pub devices: Vec<DeviceClaim>,
}

impl Default for TaskClaims {
    /// Claims of no task (`task` is -1), so that an entry the scheduler
    /// sent without a task is refused rather than read as task 0's.
    fn default() -> Self {
        TaskClaims { task: -1, volumes: Vec::new(), devices: Vec::new() }
    }
}

/// A PersistentVolumeClaim of a pod, in the pod's namespace: a
/// `persistentVolumeClaim` volume's `claimName`, or a generic ephemeral
/// volume's `<pod>-<volume>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct VolumeClaim {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// The PersistentVolume the claim is bound to as kube-scheduler judges
    /// it; empty while unbound or when the claim does not exist.
    #[serde(deserialize_with = "nullable")]
    pub volume: String,
    /// The claim's `spec.storageClassName`; empty when it names none or the
    /// claim does not exist.
    #[serde(deserialize_with = "nullable")]
    pub storage_class: String,
}

/// A ResourceClaim of a pod, by claim name (a template's claim by the name
/// its status records).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct DeviceClaim {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// `driver/pool/device` of each device the claim's allocation holds, as
    /// the session opened (the session's placements do not change it);
    /// empty while unallocated.
    #[serde(deserialize_with = "nullable")]
    pub devices: Vec<String>,
}

/// The volume limits a node's CSINode states: the most volumes of each CSI
/// driver the node attaches, by driver name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct NodeVolumeLimits {
    pub node: Handle,
    #[serde(deserialize_with = "nullable")]
    pub limits: BTreeMap<String, i32>,
}

impl Default for NodeVolumeLimits {
    /// Limits of no node (`node` is -1), refused like a claim of no task.
    fn default() -> Self {
        NodeVolumeLimits { node: -1, limits: BTreeMap::new() }
    }
}

/// What the scheduler's volume and device checks found on a node where
/// some check fails ([`Session::node_claims`](crate::Session::node_claims)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeClaims {
    /// Some check rules the node out for good (code 3), whatever its place
    /// in `checks`: Volcano's preempt and reclaim read it when the node
    /// lacks the resources too.
    pub ruled_out: bool,
    /// The failing checks in stage order, up to and including the first
    /// that [ends](ClaimCheck::ends) the checking, as the native plugin
    /// stops there.
    pub checks: Vec<ClaimCheck>,
}

/// One failing check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimCheck {
    pub stage: ClaimStage,
    pub code: Code,
    /// The check's reasons, in kube-scheduler's words.
    pub reasons: Vec<String>,
}

impl ClaimCheck {
    /// Whether the node's checking stops here: every failing check but a
    /// NodeVolumeLimits one that is merely `Unschedulable`, whose reasons
    /// join the following ones. A stage this SDK does not know ends it,
    /// the safe reading.
    pub fn ends(&self) -> bool {
        !(self.stage == ClaimStage::Limits && self.code == Code::Unschedulable)
    }
}

/// Which check failed. The native predicates plugin runs them between its
/// own filters: `Claims` after NodePorts, `Limits` and `Zone` after
/// InterPodAffinity, `Binding` and `Devices` after PodTopologySpread; a port
/// that places them there words its verdicts as the native plugin does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// A later minor may add stages: an author's match keeps a catch-all arm.
#[non_exhaustive]
pub enum ClaimStage {
    /// The pod's claims could not be read.
    Claims,
    /// NodeVolumeLimits.
    Limits,
    /// VolumeZone.
    Zone,
    /// VolumeBinding.
    Binding,
    /// DynamicResources.
    Devices,
    /// A stage of a later ABI minor, by its number.
    Other(i32),
}

impl ClaimStage {
    fn from_wire(n: i32) -> ClaimStage {
        match n {
            0 => ClaimStage::Claims,
            1 => ClaimStage::Limits,
            2 => ClaimStage::Zone,
            3 => ClaimStage::Binding,
            4 => ClaimStage::Devices,
            n => ClaimStage::Other(n),
        }
    }
}

/// Reads predicate_batch's `claims`: `[NodeClaims]`, each nil (every check
/// passes) or `[ruledOut, [[stage, code, [reason]]]]`; nil is no claims, as
/// an absent field. Arrays longer than that are read for what this SDK
/// knows, since a later minor may append.
pub(crate) fn decode_node_claims(r: &mut Reader<'_>) -> Result<Option<Vec<Option<NodeClaims>>>> {
    if r.is_nil() {
        r.nil()?;
        return Ok(None);
    }
    let n = r.array_len()?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let node = node_claims(r).map_err(|e| DecodeError(format!("claims of node {} of the batch: {}", i, e)))?;
        out.push(node);
    }
    Ok(Some(out))
}

fn node_claims(r: &mut Reader<'_>) -> Result<Option<NodeClaims>> {
    if r.is_nil() {
        r.nil()?;
        return Ok(None);
    }
    let n = r.array_len()?;
    if n < 2 {
        return Err(DecodeError(format!("want [ruledOut, checks], got an array of {}", n)));
    }
    let ruled_out = r.bool()?;
    let mut checks = Vec::new();
    if r.is_nil() {
        r.nil()?;
    } else {
        for _ in 0..r.array_len()? {
            checks.push(check(r)?);
        }
    }
    skip(r, n - 2)?;
    Ok(Some(NodeClaims { ruled_out, checks }))
}

fn check(r: &mut Reader<'_>) -> Result<ClaimCheck> {
    let n = r.array_len()?;
    if n < 3 {
        return Err(DecodeError(format!("want a check [stage, code, reasons], got an array of {}", n)));
    }
    let stage = ClaimStage::from_wire(r.i32()?);
    let number = r.i32()?;
    // The codes are the framework's (section 7); one this SDK cannot name
    // is refused rather than read as another.
    let code = Code::from_wire(number).ok_or_else(|| DecodeError(format!("check code {}", number)))?;
    let mut reasons = Vec::new();
    if r.is_nil() {
        r.nil()?;
    } else {
        for _ in 0..r.array_len()? {
            reasons.push(r.str()?.to_string());
        }
    }
    skip(r, n - 3)?;
    Ok(ClaimCheck { stage, code, reasons })
}

fn skip(r: &mut Reader<'_>, n: u32) -> Result<()> {
    for _ in 0..n {
        r.skip()?;
    }
    Ok(())
}

/// Refuses `taskClaims` and `volumeLimits` entries whose handle is outside
/// the view or names an object a second time: the session's accessors
/// find an object's entry by handle.
pub(crate) fn check_handles(v: &View) -> Result<()> {
    unique("taskClaims", "task", v.task_claims.iter().map(|c| c.task), v.tasks.len())?;
    unique("volumeLimits", "node", v.volume_limits.iter().map(|l| l.node), v.nodes.len())
}

fn unique(field: &str, kind: &str, handles: impl ExactSizeIterator<Item = Handle>, len: usize) -> Result<()> {
    if handles.len() == 0 {
        return Ok(());
    }
    let mut seen = vec![false; len];
    for h in handles {
        let i = usize::try_from(h).ok().filter(|&i| i < len).ok_or_else(|| DecodeError(format!("{}: {} handle {} of {}", field, kind, h, len)))?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(DecodeError(format!("{}: {} handle {} twice", field, kind, h)));
        }
    }
    Ok(())
}

/// Where an object's entry is in a list of entries by handle: `at[h]` is
/// the entry's index, [`NONE`] for none. Empty when the list is, so that a
/// session without claims pays nothing.
pub(crate) fn index_by_handle(handles: impl ExactSizeIterator<Item = Handle>, len: usize) -> Vec<u32> {
    if handles.len() == 0 {
        return Vec::new();
    }
    let mut at = vec![NONE; len];
    for (i, h) in handles.enumerate() {
        // A session built by hand may hold what the SDK refuses from the
        // scheduler: the first entry of a handle wins, one out of range is
        // left out.
        if let Some(slot) = usize::try_from(h).ok().and_then(|h| at.get_mut(h)) {
            if *slot == NONE {
                *slot = i as u32;
            }
        }
    }
    at
}

pub(crate) const NONE: u32 = u32::MAX;

/// The entry of `h` in `list`, through its index.
pub(crate) fn by_handle<'a, T>(list: &'a [T], at: &[u32], h: Handle) -> Option<&'a T> {
    let i = *usize::try_from(h).ok().and_then(|h| at.get(h))?;
    if i == NONE {
        return None;
    }
    list.get(i as usize)
}

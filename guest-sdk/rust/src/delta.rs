//! A `session_open` may carry, instead of the whole view, what changed since
//! the view this instance held at the end of its previous session
//! (docs/abi.md, section 6, "Deltas"): per list, its length and the objects
//! to (re)place by handle, or the whole list. Decoding only what changed is
//! what makes a session with many unchanged nodes cheap to open.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use crate::msgpack::{DecodeError, Reader, Result};
use crate::view::View;

/// Applies `{nodes: D, queues: D, jobs: D, tasks: D, plugins: [str],
/// namespaces: {..}, disruptionBudgets: [..], resourceQuotas: [..],
/// hyperNodes: [..], taskClaims: [..], volumeLimits: [..]}` to a held view.
pub(crate) fn apply(view: &mut View, r: &mut Reader<'_>) -> Result<()> {
    // The plugin list, namespaces, budgets, quotas, hypernodes, claims and
    // volume limits come whole with every open; absent means none.
    view.plugins.clear();
    view.namespaces.clear();
    view.disruption_budgets.clear();
    view.resource_quotas.clear();
    view.hyper_nodes.clear();
    view.task_claims.clear();
    view.volume_limits.clear();
    let n = r.map_len()?;
    for _ in 0..n {
        let key = r.str()?;
        let done = match key {
            "nodes" => apply_list(r, &mut view.nodes),
            "queues" => apply_list(r, &mut view.queues),
            "jobs" => apply_list(r, &mut view.jobs),
            "tasks" => apply_list(r, &mut view.tasks),
            "plugins" => plugins(r, &mut view.plugins),
            "namespaces" => namespaces(r, &mut view.namespaces),
            "disruptionBudgets" => whole(r, &mut view.disruption_budgets),
            "resourceQuotas" => whole(r, &mut view.resource_quotas),
            "hyperNodes" => whole(r, &mut view.hyper_nodes),
            "taskClaims" => whole(r, &mut view.task_claims),
            "volumeLimits" => whole(r, &mut view.volume_limits),
            _ => r.skip(),
        };
        done.map_err(|e| DecodeError(format!("delta {}: {}", key, e)))?;
    }
    Ok(())
}

fn plugins(r: &mut Reader<'_>, out: &mut Vec<String>) -> Result<()> {
    if r.is_nil() {
        return r.nil();
    }
    for _ in 0..r.array_len()? {
        out.push(r.str()?.to_string());
    }
    Ok(())
}

fn namespaces(r: &mut Reader<'_>, out: &mut BTreeMap<String, BTreeMap<String, String>>) -> Result<()> {
    if r.is_nil() {
        return r.nil();
    }
    *out = r.decode()?;
    Ok(())
}

/// Reads a list sent whole; nil is none.
fn whole<T: DeserializeOwned>(r: &mut Reader<'_>, out: &mut Vec<T>) -> Result<()> {
    if r.is_nil() {
        return r.nil();
    }
    *out = r.decode()?;
    Ok(())
}

/// Reads `{len, full, set: [[handle, object], ...]}` into list.
/// Builds a list of `len` objects from runs `[newHandle, heldHandle, count]`
/// of the held list (1.11); the delta's `set` fills the rest.
fn keep_runs<T: Default>(r: &mut Reader<'_>, mut held: Vec<T>, len: usize) -> Result<Vec<T>> {
    let mut fresh: Vec<T> = Vec::with_capacity(len);
    fresh.resize_with(len, T::default);
    for j in 0..r.array_len()? {
        if r.array_len()? != 3 {
            return Err(DecodeError(format!("keep entry {}: want [newHandle, heldHandle, count]", j)));
        }
        let (to, from, count) = (r.i32()?, r.i32()?, r.i32()?);
        let bad = || DecodeError(format!("keep run {} {} {} outside {} held, {} new", to, from, count, held.len(), len));
        let (to, from, count) = match (usize::try_from(to), usize::try_from(from), usize::try_from(count)) {
            (Ok(t), Ok(f), Ok(c)) if t + c <= len && f + c <= held.len() => (t, f, c),
            _ => return Err(bad()),
        };
        for k in 0..count {
            fresh[to + k] = std::mem::take(&mut held[from + k]);
        }
    }
    Ok(fresh)
}

fn apply_list<T: DeserializeOwned + Default>(r: &mut Reader<'_>, list: &mut Vec<T>) -> Result<()> {
    let mut len: Option<usize> = None;
    let mut full = false;
    let mut rebuilt = false;
    for _ in 0..r.map_len()? {
        match r.str()? {
            "len" => {
                let n = r.i32()?;
                len = Some(usize::try_from(n).map_err(|_| DecodeError(format!("len {}", n)))?);
            }
            "full" => full = r.bool()?,
            "keep" => {
                let len = len.filter(|_| full).ok_or_else(|| DecodeError("keep without len and full".into()))?;
                *list = keep_runs(r, std::mem::take(list), len)?;
                rebuilt = true;
            }
            "set" => {
                let len = len.ok_or_else(|| DecodeError("set before len".into()))?;
                if full && !rebuilt {
                    list.truncate(len);
                    list.resize_with(len, T::default);
                } else if list.len() != len {
                    return Err(DecodeError(format!("the delta is for {} objects, the view holds {}", len, list.len())));
                }
                if r.is_nil() {
                    r.nil()?;
                    continue;
                }
                for j in 0..r.array_len()? {
                    if r.array_len()? != 2 {
                        return Err(DecodeError(format!("set entry {}: want [handle, object]", j)));
                    }
                    let h = r.i32()?;
                    let at = usize::try_from(h).ok().filter(|&i| i < len).ok_or_else(|| DecodeError(format!("handle {} of {}", h, len)))?;
                    list[at] = r.decode()?;
                }
            }
            _ => r.skip()?,
        }
    }
    Ok(())
}

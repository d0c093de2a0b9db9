//! The resource strategies: kube-scheduler's NodeResourcesFit
//! (LeastAllocated, MostAllocated) and NodeResourcesBalancedAllocation, in
//! its integer arithmetic, and their scores kept per request shape.

use caldera::{Handle, KubeRequest};

use crate::usage::NodeState;
use crate::MAX_NODE_SCORE;

/// The pod requests none of the balanced resources, which makes
/// kube-scheduler skip balanced allocation.
pub(crate) fn best_effort_for_balance(r: &KubeRequest) -> bool {
    r.milli_cpu == 0 && r.memory == 0 && r.gpu == 0
}

/// Resource weights of Volcano's least-requested configuration.
const LEAST_REQUESTED_RESOURCE_WEIGHT: i64 = 50;

/// LeastAllocated: per resource (capacity-requested)*100/capacity,
/// integer-divided, 0 when over capacity, then the weighted mean,
/// integer-divided. Requests include the defaults for containers that set
/// none.
fn least_requested_score(r: &KubeRequest, ns: &NodeState, u: &KubeRequest) -> i64 {
    let (mut sum, mut weights) = (0i64, 0i64);
    if ns.alloc_cpu != 0 {
        sum += least_requested(u.non_zero_milli_cpu + r.non_zero_milli_cpu, ns.alloc_cpu) * LEAST_REQUESTED_RESOURCE_WEIGHT;
        weights += LEAST_REQUESTED_RESOURCE_WEIGHT;
    }
    if ns.alloc_mem != 0 {
        sum += least_requested(u.non_zero_memory + r.non_zero_memory, ns.alloc_mem) * LEAST_REQUESTED_RESOURCE_WEIGHT;
        weights += LEAST_REQUESTED_RESOURCE_WEIGHT;
    }
    if weights == 0 {
        return 0;
    }
    sum / weights
}

fn least_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    (capacity - requested) * MAX_NODE_SCORE / capacity
}

/// MostAllocated: per resource requested*100/capacity, integer-divided,
/// with requests capped at capacity, then the mean over cpu and memory
/// (weight 1 each).
fn most_requested_score(r: &KubeRequest, ns: &NodeState, u: &KubeRequest) -> i64 {
    let (mut sum, mut weights) = (0i64, 0i64);
    if ns.alloc_cpu != 0 {
        sum += most_requested(u.non_zero_milli_cpu + r.non_zero_milli_cpu, ns.alloc_cpu);
        weights += 1;
    }
    if ns.alloc_mem != 0 {
        sum += most_requested(u.non_zero_memory + r.non_zero_memory, ns.alloc_mem);
        weights += 1;
    }
    if weights == 0 {
        return 0;
    }
    sum / weights
}

fn most_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    requested.min(capacity) * MAX_NODE_SCORE / capacity
}

/// Go's min of a float and 1: NaN when the float is.
fn min1(f: f64) -> f64 {
    if f.is_nan() || f < 1.0 {
        f
    } else {
        1.0
    }
}

/// BalancedAllocation over cpu, memory and nvidia.com/gpu: 100*(1-σ)
/// truncated, where σ is the standard deviation of the used fractions
/// (each capped at 1), taken as |f1-f2|/2 for two resources. The GPU counts
/// only when the pod asks for one and the node has it. Requests are taken
/// as written, without defaults.
fn balanced_score(r: &KubeRequest, ns: &NodeState, u: &KubeRequest) -> i64 {
    let mut fractions = [0f64; 3];
    let mut n = 0;
    if ns.alloc_cpu != 0 {
        fractions[n] = min1((u.milli_cpu + r.milli_cpu) as f64 / ns.alloc_cpu as f64);
        n += 1;
    }
    if ns.alloc_mem != 0 {
        fractions[n] = min1((u.memory + r.memory) as f64 / ns.alloc_mem as f64);
        n += 1;
    }
    if r.gpu != 0 && ns.has_gpu && ns.alloc_gpu != 0 {
        fractions[n] = min1((u.gpu + r.gpu) as f64 / ns.alloc_gpu as f64);
        n += 1;
    }
    let mut std = 0f64;
    if n == 2 {
        std = ((fractions[0] - fractions[1]) / 2.0).abs();
    } else if n > 2 {
        let mut total = 0f64;
        for f in &fractions[..n] {
            total += f;
        }
        let mean = total / n as f64;
        let mut sum = 0f64;
        for f in &fractions[..n] {
            sum += (f - mean) * (f - mean);
        }
        std = (sum / n as f64).sqrt();
    }
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// For one request shape, the three resource strategies' raw scores per
/// node, valid while the node's usage is unchanged. The tasks of a gang
/// share a request, and between two of its placements only one node
/// changes, so most nodes are scored once per session instead of once per
/// task.
pub(crate) struct ResourceScores {
    slots: Vec<Slot>,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    /// The node's usage version plus one; 0 means empty.
    tag: u64,
    least: i64,
    most: i64,
    balanced: i64,
}

impl ResourceScores {
    pub(crate) fn new(node_count: usize) -> ResourceScores {
        ResourceScores { slots: vec![Slot::default(); node_count] }
    }

    /// The raw least-requested, most-requested and balanced scores of `r`
    /// on the node.
    pub(crate) fn of(&mut self, r: &KubeRequest, ns: &NodeState, node: Handle, live: bool) -> (i64, i64, i64) {
        let slot = &mut self.slots[node as usize];
        if slot.tag != ns.version + 1 {
            let u = ns.usage(live);
            *slot = Slot {
                tag: ns.version + 1,
                least: least_requested_score(r, ns, &u),
                most: most_requested_score(r, ns, &u),
                balanced: balanced_score(r, ns, &u),
            };
        }
        (slot.least, slot.most, slot.balanced)
    }
}

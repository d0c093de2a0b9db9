//! Nodes as kube-scheduler's NodeInfo sees them: allocatable and the
//! summed requests of their pods, following the session's placements when
//! the predicates plugin is configured, as in Volcano.

use caldera::{KubeRequest, Node, Task};

/// The third resource of Volcano's balanced allocation.
const GPU_RESOURCE: &str = "nvidia.com/gpu";

#[derive(Clone, Debug, Default)]
pub(crate) struct NodeState {
    pub(crate) alloc_cpu: i64,
    pub(crate) alloc_mem: i64,
    pub(crate) alloc_gpu: i64,
    pub(crate) has_gpu: bool,
    /// The pods on the node at session open; `delta` follows the session's
    /// placements and evictions.
    base: KubeRequest,
    delta: KubeRequest,
    /// Counts the changes to `delta`, for the resource score tables.
    pub(crate) version: u64,
}

impl NodeState {
    pub(crate) fn new(n: &Node) -> NodeState {
        // The view's allocatable is the node's status.allocatable:
        // milli-CPU and bytes as kube-scheduler reads them, scalars in
        // milli-units, which round up to whole devices as Quantity.Value
        // does.
        let gpu = n.allocatable.scalars.get(GPU_RESOURCE);
        NodeState {
            alloc_cpu: n.allocatable.milli_cpu,
            alloc_mem: n.allocatable.memory,
            alloc_gpu: gpu.map_or(0, |&milli| ceil_div(milli, 1000)),
            has_gpu: gpu.is_some(),
            base: n.kube_requested.clone(),
            delta: KubeRequest::default(),
            version: 0,
        }
    }

    /// What the node's pods request now, as Volcano sees it.
    pub(crate) fn usage(&self, live: bool) -> KubeRequest {
        let mut u = self.base.clone();
        if live {
            add_request(&mut u, &self.delta, 1);
        }
        u
    }

    pub(crate) fn add_task(&mut self, task: &Task, sign: i64) {
        add_request(&mut self.delta, &task.kube_request, sign);
        self.version += 1;
    }
}

/// Divides rounding towards positive infinity (Rust's `/` truncates, as
/// Go's does).
fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if a % b != 0 && (a < 0) == (b < 0) {
        q + 1
    } else {
        q
    }
}

fn add_request(r: &mut KubeRequest, o: &KubeRequest, sign: i64) {
    r.milli_cpu = r.milli_cpu.wrapping_add(sign.wrapping_mul(o.milli_cpu));
    r.memory = r.memory.wrapping_add(sign.wrapping_mul(o.memory));
    r.gpu = r.gpu.wrapping_add(sign.wrapping_mul(o.gpu));
    r.non_zero_milli_cpu = r.non_zero_milli_cpu.wrapping_add(sign.wrapping_mul(o.non_zero_milli_cpu));
    r.non_zero_memory = r.non_zero_memory.wrapping_add(sign.wrapping_mul(o.non_zero_memory));
}

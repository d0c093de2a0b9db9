//! The Rust port of Caldera's native network-topology-aware plugin
//! (Volcano v1.15's): it offers the hypernode gradients of allocate's and
//! gang eviction's search, scores hypernodes by how full a job would leave
//! them, and scores nodes by how close they are to what a job with a
//! network topology placed so far, or, for other pods, by how full each
//! tier's hypernode would be. It reads the hypernodes and each job's
//! network topology from the session view and the job's current placement
//! from the hooks' arguments (ABI 1.9).
//!
//! hostplugins/networktopologyaware/doc.go says what it decides; this port
//! decides the same with the same arguments and defaults.
#![deny(unsafe_code)]

mod args;
mod pow;
mod resource;
mod topology;

use caldera::{
    status, Argument, Error, GradientScope, Handle, HyperNode, HyperNodeGradient, HyperNodeOrder, HyperNodeSearch, Job, NetworkTopology, Node,
    NodeOrder, Plugin, SearchPurpose, Session, Task,
};

use args::Args;
use resource::Amount;
use topology::Topology;

/// kube-scheduler's framework.MaxNodeScore, by which Volcano scales the
/// plugin's scores.
const MAX_NODE_SCORE: f64 = 100.0;

/// The network topology mode the gradients confine (the scheduler resolves
/// soft mode to hard up to the cluster top).
const HARD: &str = "hard";

/// One session's index of the hypernodes, by handle.
#[derive(Default)]
pub struct NetworkTopologyAware {
    args: Args,
    topo: Topology,
    /// Each hypernode's resources: `used` follows the session's placements;
    /// `allocatable`, `idle` and `future_idle` are as it opened.
    usage: Vec<Usage>,
    /// The node each task was last charged on, by task handle: a
    /// deallocation's event names no node.
    task_node: Vec<Handle>,
    /// fading^(tier-1) per tier from the lowest; `tier_total` their sum.
    tier_weights: Vec<f64>,
    tier_total: f64,
    /// Scratch of one call: each hypernode's binpack score, once computed.
    scratch: Vec<f64>,
    scored: Vec<bool>,
}

#[derive(Default)]
struct Usage {
    allocatable: Amount,
    used: Amount,
    idle: Amount,
    future_idle: Amount,
}

caldera::export!(NetworkTopologyAware);

impl Plugin for NetworkTopologyAware {
    const NAME: &'static str = "network-topology-aware";
    const ARGUMENTS: &'static [Argument] = args::DECLARED;

    /// Reads the arguments and sums each hypernode's nodes.
    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        self.args = Args::read(s.arguments())?;
        let v = s.view();
        self.topo = Topology::new(&v.hyper_nodes, v.nodes.len());
        self.usage = self
            .topo
            .nodes
            .iter()
            .map(|nodes| {
                let mut u = Usage::default();
                for node in nodes.iter().map(|&n| &v.nodes[n]) {
                    u.allocatable.add(&node.allocatable, 1.0);
                    u.used.add(&node.used, 1.0);
                    u.idle.add(&node.idle, 1.0);
                    u.future_idle.add(&node.idle, 1.0);
                    u.future_idle.add(&node.releasing, 1.0);
                    u.future_idle.add(&node.pipelined, -1.0);
                }
                u
            })
            .collect();
        self.task_node = v.tasks.iter().map(|t| t.node).collect();
        let tiers = if v.hyper_nodes.is_empty() { 0 } else { self.topo.max_tier - self.topo.min_tier + 1 };
        self.tier_weights = (0..tiers).map(|t| pow::pow(self.args.fading, i64::from(self.topo.min_tier) + i64::from(t) - 1)).collect();
        self.tier_total = 0.0;
        for w in &self.tier_weights {
            self.tier_total += w;
        }
        self.scratch = vec![0.0; v.hyper_nodes.len()];
        self.scored = vec![false; v.hyper_nodes.len()];
        Ok(())
    }

    /// Charges the task to every hypernode holding its node.
    fn on_allocate(&mut self, _: &Session, t: &Task) {
        self.charge(t, t.node, 1.0);
        self.task_node[t.handle as usize] = t.node;
    }

    /// Gives it back, on the node it leaves.
    fn on_deallocate(&mut self, _: &Session, t: &Task) {
        let node = if t.node < 0 { self.task_node[t.handle as usize] } else { t.node };
        self.charge(t, node, -1.0);
        self.task_node[t.handle as usize] = t.node;
    }
}

impl HyperNodeGradient for NetworkTopologyAware {
    /// For a job in hard mode, the hypernodes in the subtree it may use,
    /// grouped by tier, lowest first, each group in name order: those of at
    /// most its highest allowed tier with idle (or soon idle) room for its
    /// minResources (the job's search) or its pending tasks' requests
    /// (within a hypernode), or any once the job holds some; a job placed
    /// somewhere is searched under the highest hypernode above its
    /// placement that its tier allows. For eviction room is allocatable
    /// room and the gradients come widest first, at most
    /// hypernode.gradient.evict.max-hypernodes hypernodes in all.
    fn hyper_node_gradient<'s>(&mut self, s: &'s Session, search: &HyperNodeSearch<'s>) -> Vec<Vec<&'s HyperNode>> {
        let hns = s.hyper_nodes();
        let within = match search.within.or_else(|| self.topo.top.map(|top| &hns[top])) {
            Some(w) => w,
            None => return Vec::new(),
        };
        let highest = match &search.job.network_topology {
            Some(NetworkTopology { mode, highest_tier: Some(tier), .. }) if mode == HARD => *tier,
            _ => return vec![vec![within]],
        };
        let allocated = search.allocated.map(|h| h.handle as usize);
        let root = match self.search_root(within.handle as usize, highest, allocated) {
            Some(root) => root,
            None => return Vec::new(),
        };
        let mut min_req = Amount::default();
        if search.scope == GradientScope::Tasks {
            for t in s.tasks_of(search.job).filter(|t| t.status == status::PENDING) {
                min_req.add(&t.init_request, 1.0);
            }
        } else {
            min_req = Amount::of(&search.job.min_resources);
        }
        let mut by_tier = std::collections::BTreeMap::<i32, Vec<usize>>::new();
        for h in self.topo.subtree(root) {
            if self.eligible(h, highest, allocated, &min_req, search.purpose) {
                by_tier.entry(self.topo.tier[h]).or_default().push(h);
            }
        }
        let gradients: Vec<Vec<&'s HyperNode>> = by_tier
            .into_values()
            .map(|mut g| {
                g.sort_unstable(); // handles are in name order
                g.into_iter().map(|h| &hns[h]).collect()
            })
            .collect();
        if search.purpose == SearchPurpose::Evict {
            return widest_first(gradients, usize::try_from(self.args.evict_max).unwrap_or(usize::MAX));
        }
        gradients
    }
}

/// The gradients reversed, keeping at most limit hypernodes: the first
/// gradient that overflows is cut to its last names.
fn widest_first<T>(gradients: Vec<Vec<T>>, mut limit: usize) -> Vec<Vec<T>> {
    let mut out = Vec::with_capacity(gradients.len());
    for mut g in gradients.into_iter().rev() {
        if limit == 0 {
            break;
        }
        if g.len() > limit {
            g.drain(..g.len() - limit);
        }
        limit -= g.len();
        out.push(g);
    }
    out
}

impl NetworkTopologyAware {
    fn eligible(&self, h: usize, highest: i32, allocated: Option<usize>, min_req: &Amount, purpose: SearchPurpose) -> bool {
        if self.topo.tier[h] > highest {
            return false;
        }
        if allocated.is_some() {
            return true;
        }
        let u = &self.usage[h];
        if purpose == SearchPurpose::Evict {
            return min_req.less_equal(&u.allocatable);
        }
        min_req.less_equal(&u.idle) || min_req.less_equal(&u.future_idle)
    }

    /// Narrows within to what a job placed under allocated may use: the
    /// highest ancestor of allocated within the tier limit when it lies
    /// inside within; within when within lies inside it; `None` when they
    /// do not meet.
    fn search_root(&self, within: usize, highest: i32, allocated: Option<usize>) -> Option<usize> {
        let allocated = match allocated {
            Some(a) => a,
            None => return Some(within),
        };
        let mut limit = None;
        for anc in self.topo.ancestors(allocated) {
            if self.topo.tier[anc] > highest {
                break;
            }
            limit = Some(anc);
        }
        let limit = limit?;
        match self.topo.lca(within, limit) {
            Some(l) if l == limit => Some(within),
            Some(l) if l == within => Some(limit),
            _ => None,
        }
    }

    /// How full the hypernode would be with request added, averaged over
    /// the binpack resources the request asks for by their weights; 0 when
    /// it would not fit in one of them.
    fn binpack_score(&self, h: usize, request: &Amount) -> f64 {
        let u = &self.usage[h];
        let (mut total, mut weights) = (0.0, 0i64);
        for name in request.asked() {
            let w = match self.args.weight_of(name) {
                Some(w) => w,
                None => continue,
            };
            let (alloc, used, req) = (u.allocatable.get(name), u.used.get(name), request.get(name));
            if used + req > alloc {
                return 0.0;
            }
            total += w as f64 * (used + req) / alloc;
            weights = weights.wrapping_add(w);
        }
        if weights <= 0 {
            return 0.0;
        }
        total / weights as f64
    }

    /// The share of the job's tasks on the hypernode's nodes.
    fn task_share(&self, s: &Session, h: usize, job: &Job) -> f64 {
        let tasks = s.tasks_of(job);
        if tasks.len() == 0 {
            return 1.0;
        }
        let total = tasks.len();
        let on = tasks.filter(|t| t.node >= 0 && self.topo.holds(h, t.node)).count();
        on as f64 / total as f64
    }

    /// Adds sign times the task's request to every hypernode holding the
    /// node.
    fn charge(&mut self, t: &Task, node: Handle, sign: f64) {
        let holding = match usize::try_from(node).ok().and_then(|n| self.topo.holding.get(n)) {
            Some(holding) => holding,
            None => return,
        };
        for &h in holding {
            self.usage[h].used.add(&t.request, sign);
        }
    }

    fn scale(&self, scores: &mut [f64]) {
        for score in scores {
            *score = MAX_NODE_SCORE * self.args.weight as f64 * *score;
        }
    }
}

impl HyperNodeOrder for NetworkTopologyAware {
    /// Each hypernode by how full it would be with all the job's tasks in
    /// it; where several share the highest score, the share of the job's
    /// tasks already in each is added. Scores are 0..100 times weight.
    fn hyper_node_order(&mut self, s: &Session, search: &HyperNodeSearch<'_>, hyper_nodes: &[&HyperNode], scores: &mut [f64]) -> Result<(), Error> {
        let mut request = Amount::default();
        for t in s.tasks_of(search.job) {
            request.add(&t.request, 1.0);
        }
        let (mut best, mut at_best) = (-1.0, 0);
        for (hn, score) in hyper_nodes.iter().zip(scores.iter_mut()) {
            *score = self.binpack_score(hn.handle as usize, &request);
            if *score > best {
                best = *score;
                at_best = 1;
            } else if *score == best {
                at_best += 1;
            }
        }
        if at_best > 1 {
            for (hn, score) in hyper_nodes.iter().zip(scores.iter_mut()) {
                if *score == best {
                    *score += self.task_share(s, hn.handle as usize, search.job);
                }
            }
        }
        self.scale(scores);
        Ok(())
    }
}

impl NodeOrder for NetworkTopologyAware {
    /// Scores nodes for a task. For a job with a network topology, while
    /// allocate places it and it has placed some: by how low the hypernode
    /// joining the node's lowest hypernode and the job's placement so far
    /// is, with the share of the job's tasks on each best node's lowest
    /// hypernode added to break ties. For other tasks, when hypernode
    /// binpacking of normal pods is on: each tier's hypernode binpack score
    /// of the task, weighted by fading^(tier-1).
    fn node_order_batch(&mut self, s: &Session, task: &Task, nodes: &[&Node], scores: &mut [f64]) -> Result<(), Error> {
        let job = match s.job_of(task) {
            Some(job) => job,
            None => return Ok(()),
        };
        let scored = if job.network_topology.is_some() {
            self.topology_scores(s, job, s.job_hyper_node(), nodes, scores)
        } else {
            self.normal_scores(task, nodes, scores)
        };
        if scored {
            self.scale(scores);
        }
        Ok(())
    }
}

impl NetworkTopologyAware {
    /// The scores of a job with a network topology that has placed what
    /// `placed` holds; false, scoring nothing, when it has placed nothing.
    fn topology_scores(&self, s: &Session, job: &Job, placed: Option<&HyperNode>, nodes: &[&Node], scores: &mut [f64]) -> bool {
        let placed = match placed {
            Some(p) => p.handle as usize,
            None => return false,
        };
        let lowest = |n: &Node| self.topo.lowest[n.handle as usize];
        let (mut best, mut at_best) = (-1.0, 0);
        for (n, score) in nodes.iter().zip(scores.iter_mut()) {
            *score = self.lca_score(lowest(n), placed);
            if *score > best {
                best = *score;
                at_best = 1;
            } else if *score == best {
                at_best += 1;
            }
        }
        if at_best > 1 {
            for (n, score) in nodes.iter().zip(scores.iter_mut()) {
                if *score != best {
                    continue;
                }
                if let Some(hn) = lowest(n) {
                    *score += self.task_share(s, hn, job);
                }
            }
        }
        true
    }

    fn lca_score(&self, h: Option<usize>, placed: usize) -> f64 {
        let h = match h {
            Some(h) => h,
            None => return 0.0,
        };
        if h == placed {
            return 1.0;
        }
        match self.topo.lca(h, placed) {
            Some(lca) => self.tier_score(self.topo.tier[lca]),
            None => 0.0,
        }
    }

    fn tier_score(&self, tier: i32) -> f64 {
        let (min, max) = (self.topo.min_tier, self.topo.max_tier);
        if min == max {
            return 1.0;
        }
        if tier < min || tier > max {
            return 0.0;
        }
        f64::from(max - tier) / f64::from(max - min)
    }

    /// The scores of a task of a job without a network topology; false,
    /// scoring nothing, when hypernode binpacking of normal pods is off.
    fn normal_scores(&mut self, task: &Task, nodes: &[&Node], scores: &mut [f64]) -> bool {
        if !self.args.normal_pods || self.tier_total <= 0.0 {
            return false;
        }
        self.scored.iter_mut().for_each(|s| *s = false);
        let request = Amount::of(&task.request);
        for (n, score) in nodes.iter().zip(scores.iter_mut()) {
            let mut sum = 0.0;
            for t in 0..self.tier_weights.len() {
                let mut tier_score = 1.0;
                if let Some(&Some(h)) = self.topo.at_tier[n.handle as usize].get(t) {
                    if !self.scored[h] {
                        self.scratch[h] = self.binpack_score(h, &request);
                        self.scored[h] = true;
                    }
                    tier_score = self.scratch[h];
                }
                sum += self.tier_weights[t] * tier_score;
            }
            *score = sum / self.tier_total;
        }
        true
    }
}

#[cfg(test)]
mod tests;

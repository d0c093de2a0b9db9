//! The Rust port of Caldera's native predicates plugin (hostplugins/predicates,
//! Volcano's predicates), translated from the Go port: it decides whether a
//! task may go on a node with kube-scheduler's rules and reason strings,
//! filter by filter in Volcano's order:
//!
//! ```text
//! NodeUnschedulable, NodeAffinity, TaintToleration  (stable: kept per pod
//!     template and node; UnschedulableAndUnresolvable)      template.rs
//! resource fit   init_request against idle + releasing - pipelined   fit.rs
//! pod count      the node's allocatable "pods"                     nodes.rs
//! NodePorts      host ports in use on the node                     nodes.rs
//! InterPodAffinity, PodTopologySpread  the pods on every node   podrules.rs
//! ```
//!
//! with the scheduler's volume and device checks among them (claims.rs),
//! and `pre_predicate` rejects a pod whose required node affinity names
//! nodes by metadata.name in a way no node can satisfy, or whose affinity
//! terms or spread constraints do not parse. The arguments are the native
//! plugin's, with its defaults (args.rs).
#![deny(unsafe_code)]

mod args;
mod claims;
mod fit;
mod nodes;
mod podrules;
mod template;

use std::collections::HashMap;

use caldera::{
    log, status, ClaimStage, Code, DomainRules, Error, Level, Node, Plugin, PrePredicate, Predicate, Session, Task, Verdict,
};

use args::Args;
use claims::claim_checks;
use fit::Fit;
use nodes::{stable_reason, Entry, NodeState, REASON_NODE_PORTS, REASON_POD_NUMBER_EXCEEDED, REASON_TOO_MANY_AND_PORTS};
use podrules::Rules;
use template::{template_key, Template, PASS};

const REASON_AFFINITY_CONFLICT: &str = "plugin NodeAffinity pre-predicates failed pod affinity terms conflict";

/// The predicates policy for one session.
#[derive(Default)]
pub struct Predicates {
    args: Args,
    /// The module has logged that the scheduler does not run the volume
    /// and device checks for it.
    old_host_warned: bool,
    nodes: Vec<NodeState>,
    templates: Vec<Template>,
    /// Each task's template, request and placement, by task handle.
    entries: Vec<Entry>,
    /// `None` in a session without inter-pod affinity or spread rules.
    rules: Option<Rules>,
}

caldera::export!(Predicates);

impl Plugin for Predicates {
    const NAME: &'static str = "predicates";
    const ARGUMENTS: &'static [caldera::Argument] = args::DECLARED;
    /// Every filter but inter-pod affinity and topology spread reads the
    /// node (labels, taints, resources, pods and ports as events left
    /// them) and the task's own fields, nothing else, so a verdict holds
    /// until the node changes.
    const NODE_LOCAL_PREDICATES: bool = true;
    /// The scheduler runs the volume and device checks (claims.rs), with
    /// the flags the native plugin reads from the port's arguments.
    const CLAIM_CHECKS: bool = true;

    /// Reads the arguments and indexes the nodes and the templates of the
    /// session's tasks.
    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        let a = Args::read(s.arguments())?;
        self.args = a;
        if a.claim_flags && s.host_abi_minor() < 10 && !self.old_host_warned {
            self.old_host_warned = true;
            log(
                Level::Error,
                "this scheduler speaks an ABI before 1.10 and does not run the volume and device checks \
                 (VolumeBinding, VolumeZone, NodeVolumeLimits, DynamicResources) for the port: pods with PersistentVolumeClaims or ResourceClaims \
                 are placed as if they had none; use the native predicates plugin, or a scheduler of ABI 1.10 or later",
            );
        }
        let v = s.view();
        self.nodes = v.nodes.iter().map(NodeState::new).collect();
        self.templates.clear();
        self.entries = Vec::with_capacity(v.tasks.len());
        let mut templates: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut key = Vec::new();
        for t in &v.tasks {
            key.clear();
            template_key(&mut key, t);
            let tpl = match templates.get(key.as_slice()) {
                Some(&i) => i,
                None => {
                    self.templates.push(Template::new(t, v.nodes.len()));
                    templates.insert(key.clone(), self.templates.len() - 1);
                    self.templates.len() - 1
                }
            };
            // A session reopened after a failure sees its own placements in
            // the view; they count as placed here.
            let placed = (t.status == status::ALLOCATED || t.status == status::PIPELINED) && t.node >= 0;
            self.entries.push(Entry { tpl, fit: Fit::new(&t.init_request), placed_on: if placed { t.node } else { -1 }, evicted_from: -1 });
        }
        self.rules = Rules::new(v, &self.args);
        Ok(())
    }

    /// Withdraws the node-local promise in a session whose pods have
    /// inter-pod affinity or spread rules: those filters read other nodes'
    /// pods.
    fn predicates_node_local_in(&self, _: &Session) -> bool {
        self.rules.is_none()
    }

    /// Names the tasks whose verdicts stay node-local in a session with
    /// pod rules: most have no rules of their own that read other nodes.
    /// pre_predicate brings their states up to date, which is where the
    /// scheduler lets kept verdicts serve them. A scheduler that reads
    /// domain rules is told, at each pre_predicate, all that the filters
    /// read of other nodes (predicate_domain_rules): every task is then
    /// node-local apart from its rules.
    fn predicates_node_local_classes(&self, s: &Session, classes: &mut [i32]) -> bool {
        // Asked only when predicates_node_local_in said false: rules is set.
        if let Some(r) = &self.rules {
            let (affinity, spread) = (self.args.pod_affinity, self.args.pod_topology_spread);
            if s.reads_domain_rules() {
                caldera::podrules::ruled_classes(s.view(), affinity, spread, classes);
            } else {
                r.idx.node_local_classes(s.view(), affinity, spread, classes);
            }
        }
        true
    }

    /// Restates the task's InterPodAffinity and PodTopologySpread states,
    /// as pre_predicate brought them up to date, as rules on its nodes'
    /// topology domains.
    fn predicate_domain_rules(&mut self, s: &Session, task: &Task, rules: &mut DomainRules) -> bool {
        match &mut self.rules {
            Some(r) => r.domain_rules(s.view(), task, rules),
            None => true,
        }
    }

    /// pre_predicate reads the task's required node affinity and the
    /// session's arguments, nothing else, unless the session has pod rules:
    /// it then also brings the task's rule states up to date, which must
    /// happen at every call, as in Volcano.
    fn pre_predicates_by_shape(&self, _: &Session) -> bool {
        self.rules.is_none()
    }

    fn on_allocate(&mut self, _: &Session, task: &Task) {
        self.follow_allocate(task);
    }

    fn on_deallocate(&mut self, _: &Session, task: &Task) {
        self.follow_deallocate(task);
    }
}

impl PrePredicate for Predicates {
    /// Rejects a pod whose required node affinity can match no node, or
    /// whose pod rules do not parse.
    fn pre_predicate(&mut self, s: &Session, task: &Task) -> Verdict {
        if self.args.node_affinity && self.templates[self.entries[task.handle as usize].tpl].conflict {
            return Verdict::unresolvable(REASON_AFFINITY_CONFLICT);
        }
        if let Some(r) = &mut self.rules {
            let i = r.of(s.view(), task);
            r.catch_up(s.view(), i);
            if let Some(reason) = r.states(i).pre_filter() {
                return Verdict::unresolvable(reason);
            }
        }
        Verdict::PASS
    }
}

impl Predicate for Predicates {
    /// Runs the filters on every node.
    fn predicate_batch(&mut self, s: &Session, task: &Task, nodes: &[&Node], verdicts: &mut [Verdict]) {
        let e = &self.entries[task.handle as usize];
        let mut rs = None;
        if let Some(r) = &mut self.rules {
            let i = r.of(s.view(), task);
            if s.in_victim_trial() {
                r.catch_up(s.view(), i);
            }
            if !r.states(i).passes_all() {
                rs = Some(r.states(i));
            }
        }
        let tpl = &mut self.templates[e.tpl];
        for (i, n) in nodes.iter().enumerate() {
            let ns = &self.nodes[n.handle as usize];
            let outcome = tpl.outcome(n, &self.args);
            let too_many = ns.pods >= ns.max_pods;
            if outcome != PASS {
                verdicts[i] = Verdict::unresolvable(stable_reason(outcome, n, too_many));
                continue;
            }
            let nc = s.node_claims(i);
            if let Some(r) = e.fit.shortfall(n) {
                // Volcano's preempt and reclaim rule a node out when a
                // filter after the resource check is unresolvable there.
                let mut code = Code::Unschedulable;
                if rs.map_or(false, |rs| rs.filter(n, &mut String::new())) || nc.map_or(false, |nc| nc.ruled_out) {
                    code = Code::UnschedulableAndUnresolvable;
                }
                verdicts[i] = Verdict { code, reason: r.to_string() };
                continue;
            }
            let ports_taken = self.args.node_ports && !tpl.ports.is_empty() && ns.ports_taken(&tpl.ports);
            let mut reason = match (too_many, ports_taken) {
                (true, true) => REASON_TOO_MANY_AND_PORTS,
                (true, false) => REASON_POD_NUMBER_EXCEEDED,
                (false, true) => REASON_NODE_PORTS,
                (false, false) => "",
            }
            .to_string();
            // The filters that depend on other pods and the scheduler's
            // volume and device checks come after NodePorts, in Volcano's
            // order (claims.rs); their reasons add up, and an unresolvable
            // one, or a check that ends, ends the node's check.
            if let Some(code) = claim_checks(nc, ClaimStage::Claims, ClaimStage::Claims, &mut reason) {
                verdicts[i] = Verdict { code, reason };
                continue;
            }
            if rs.map_or(false, |rs| rs.filter_affinity(n, &mut reason)) {
                verdicts[i] = Verdict::unresolvable(reason);
                continue;
            }
            if let Some(code) = claim_checks(nc, ClaimStage::Limits, ClaimStage::Zone, &mut reason) {
                verdicts[i] = Verdict { code, reason };
                continue;
            }
            if rs.map_or(false, |rs| rs.filter_spread(n, &mut reason)) {
                verdicts[i] = Verdict::unresolvable(reason);
                continue;
            }
            if let Some(code) = claim_checks(nc, ClaimStage::Binding, ClaimStage::Devices, &mut reason) {
                verdicts[i] = Verdict { code, reason };
                continue;
            }
            if !reason.is_empty() {
                verdicts[i] = Verdict::reject(reason);
            }
        }
    }
}

/// Appends `r` to `reasons`, after ", " when they hold some.
fn join(reasons: &mut String, r: &str) {
    if !reasons.is_empty() {
        reasons.push_str(", ");
    }
    reasons.push_str(r);
}

#[cfg(test)]
mod tests;

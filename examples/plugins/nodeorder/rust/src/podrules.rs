//! The InterPodAffinity and PodTopologySpread scores of a session, one
//! state each per rule template, made on first use.

use std::collections::HashMap;

use caldera::podrules::{scores_anything, template_key, AffinityScore, Index, SpreadScore};
use caldera::{Error, Node, Task, View};

use crate::add_weighted;
use crate::weights::Weights;

/// Made only in a session where either score can tell nodes apart (some
/// preferred terms, required affinity, ScheduleAnyway or default spread
/// constraints: a session whose pods have only required anti-affinity and
/// hard spread constraints scores as one without rules) and its weight is
/// not 0.
pub(crate) struct Rules {
    pub(crate) idx: Index,
    pod_affinity: i64,
    pod_topology_spread: i64,
    hard_pod_affinity: i32,
    states: Vec<States>,
    by_key: HashMap<Vec<u8>, usize>,
    /// Each task's states, once asked for.
    by_task: Vec<Option<usize>>,
    key: Vec<u8>,
}

struct States {
    affinity: Option<AffinityScore>,
    spread: Option<SpreadScore>,
}

impl Rules {
    pub(crate) fn new(v: &View, w: &Weights) -> Option<Rules> {
        let hard = w.hard_pod_affinity as i32;
        if !scores_anything(v, w.pod_affinity != 0, hard, w.pod_topology_spread != 0) {
            return None;
        }
        Some(Rules {
            idx: Index::new(v),
            pod_affinity: w.pod_affinity,
            pod_topology_spread: w.pod_topology_spread,
            hard_pod_affinity: hard,
            states: Vec::new(),
            by_key: HashMap::new(),
            by_task: vec![None; v.tasks.len()],
            key: Vec::new(),
        })
    }

    fn of(&mut self, v: &View, t: &Task) -> usize {
        let h = t.handle as usize;
        if let Some(i) = self.by_task[h] {
            return i;
        }
        self.key.clear();
        template_key(&mut self.key, t);
        let i = match self.by_key.get(self.key.as_slice()) {
            Some(&i) => i,
            None => {
                let states = States {
                    affinity: (self.pod_affinity != 0).then(|| AffinityScore::new(&self.idx, v, t, self.hard_pod_affinity)),
                    spread: (self.pod_topology_spread != 0).then(|| SpreadScore::new(&self.idx, v, t)),
                };
                self.states.push(states);
                self.by_key.insert(self.key.clone(), self.states.len() - 1);
                self.states.len() - 1
            }
        };
        self.by_task[h] = Some(i);
        i
    }

    /// Scores the candidates with both rules, weighted, into `scores`. The
    /// states catch up with the session's placements as they score. A task
    /// whose terms or constraints do not parse fails with kube-scheduler's
    /// PreScore error, and no node is scored for it.
    pub(crate) fn add(&mut self, v: &View, task: &Task, nodes: &[&Node], raw: &mut Vec<i64>, scores: &mut [f64]) -> Result<(), Error> {
        let i = self.of(v, task);
        let s = &mut self.states[i];
        if let Some(a) = s.affinity.as_ref().filter(|a| !a.err.is_empty()) {
            return Err(format!("InterPodAffinity PreScore: failed to parse pod: {}", a.err).into());
        }
        if let Some(sp) = s.spread.as_ref().filter(|sp| !sp.err.is_empty()) {
            return Err(format!(
                "PodTopologySpread PreScore: calculating preScoreState: obtaining pod's soft topology spread constraints: {}",
                sp.err
            )
            .into());
        }
        if let Some(a) = s.affinity.as_mut() {
            if a.score(&self.idx, v, nodes, raw) {
                add_weighted(scores, raw, self.pod_affinity);
            }
        }
        if let Some(sp) = s.spread.as_mut() {
            if sp.score(&self.idx, v, nodes, raw) {
                add_weighted(scores, raw, self.pod_topology_spread);
            }
        }
        Ok(())
    }
}

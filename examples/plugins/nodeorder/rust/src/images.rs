//! kube-scheduler's ImageLocality.

use std::collections::HashMap;

use caldera::{Node, Task};

use crate::MAX_NODE_SCORE;

const MB: i64 = 1024 * 1024;
const MIN_IMAGE_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// What ImageLocality reads of the session's nodes: per node, the size of
/// each image name it reports, and on how many nodes each name is. Built on
/// the first task scored, as the native plugin does.
#[derive(Default)]
pub(crate) struct Images {
    built: bool,
    /// `None` for a node that reports no image.
    per_node: Vec<Option<HashMap<String, i64>>>,
    spread: HashMap<String, i64>,
    /// No node reports any image.
    pub(crate) none: bool,
}

impl Images {
    pub(crate) fn build(&mut self, nodes: &[Node]) {
        if self.built {
            return;
        }
        self.built = true;
        self.none = true;
        self.per_node = Vec::with_capacity(nodes.len());
        for n in nodes {
            if n.images.is_empty() {
                self.per_node.push(None);
                continue;
            }
            self.none = false;
            let mut sizes = HashMap::new();
            for img in &n.images {
                for name in &img.names {
                    if sizes.insert(name.clone(), img.size).is_none() {
                        *self.spread.entry(name.clone()).or_insert(0) += 1;
                    }
                }
            }
            self.per_node.push(Some(sizes));
        }
    }

    /// ImageLocality's score (0..100) for a task on a node: the sizes of
    /// its images present there, each scaled by the share of nodes that
    /// have it, clamped to [23 MB, 1000 MB per container] and scaled to
    /// 0..100.
    pub(crate) fn score(&self, task: &Task, node: usize) -> i64 {
        let mut sum = 0i64;
        if let Some(here) = &self.per_node[node] {
            let total = self.per_node.len() as f64;
            for name in &task.images {
                if let Some(&size) = here.get(name) {
                    sum += (size as f64 * (self.spread[name] as f64 / total)) as i64;
                }
            }
        }
        let max_threshold = MAX_CONTAINER_THRESHOLD * task.images.len() as i64;
        sum = sum.min(max_threshold).max(MIN_IMAGE_THRESHOLD);
        MAX_NODE_SCORE * (sum - MIN_IMAGE_THRESHOLD) / (max_threshold - MIN_IMAGE_THRESHOLD)
    }
}

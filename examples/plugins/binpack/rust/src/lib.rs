//! The Rust port of Caldera's native binpack plugin (Volcano's binpack): it
//! scores a node higher the fuller it would be with the task on it, per
//! resource weighted by `binpack.cpu`, `binpack.memory` and
//! `binpack.resources`, times `binpack.weight`.
#![deny(unsafe_code)]

use std::collections::BTreeMap;

use caldera::{Error, Node, NodeOrder, Plugin, Resource, Session, Task};

const MAX_NODE_SCORE: i64 = 100;

#[derive(Default)]
pub struct Binpack {
    weight: i64,
    cpu: i64,
    memory: i64,
    scalars: BTreeMap<String, i64>,
}

caldera::export!(Binpack);

/// A negative weight counts as 1, as in Volcano.
fn positive(w: i64) -> i64 {
    if w < 0 {
        1
    } else {
        w
    }
}

impl Plugin for Binpack {
    const NAME: &'static str = "binpack";

    /// Reads the arguments with Volcano's defaults.
    fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
        let args = s.arguments();
        self.weight = args.int("binpack.weight", 1)?;
        self.cpu = positive(args.int("binpack.cpu", 1)?);
        self.memory = positive(args.int("binpack.memory", 1)?);
        self.scalars.clear();
        for name in args.str("binpack.resources").unwrap_or("").split(',').map(str::trim) {
            if name.is_empty() || name == "cpu" || name == "memory" {
                continue;
            }
            let w = args.int(&format!("binpack.resources.{}", name), 1).map_err(|e| format!("binpack: {}", e))?;
            self.scalars.insert(name.to_string(), positive(w));
        }
        Ok(())
    }
}

impl NodeOrder for Binpack {
    fn node_order_batch(&mut self, _: &Session, task: &Task, nodes: &[&Node], scores: &mut [f64]) -> Result<(), Error> {
        if self.weight == 0 {
            return Ok(());
        }
        for (n, score) in nodes.iter().zip(scores) {
            *score = self.score(&task.request, n);
        }
        Ok(())
    }
}

impl Binpack {
    /// Volcano's BinPackingScore. It allocates nothing: it runs once per
    /// candidate node.
    fn score(&self, req: &Resource, n: &Node) -> f64 {
        let mut acc = Accumulator::default();
        if req.milli_cpu > 0 && !acc.add(req.milli_cpu, n.allocatable.milli_cpu, n.used.milli_cpu, self.cpu) {
            return 0.0;
        }
        if req.memory > 0 && !acc.add(req.memory, n.allocatable.memory, n.used.memory, self.memory) {
            return 0.0;
        }
        if !self.scalars.is_empty() {
            for (name, &q) in &req.scalars {
                let w = match self.scalars.get(name) {
                    Some(&w) if q > 0 => w,
                    _ => continue,
                };
                if !acc.add(q, n.allocatable.scalar(name), n.used.scalar(name), w) {
                    return 0.0;
                }
            }
        }
        let mut sum = acc.sum;
        if acc.weights > 0 {
            sum /= acc.weights as f64;
        }
        sum * (MAX_NODE_SCORE * self.weight) as f64
    }
}

/// The weighted fullness of each resource dimension, summed.
#[derive(Default)]
struct Accumulator {
    sum: f64,
    weights: i64,
}

impl Accumulator {
    /// Adds one dimension; false when the request would not fit.
    fn add(&mut self, request: i64, capacity: i64, used: i64, weight: i64) -> bool {
        self.weights += weight;
        if capacity == 0 || weight == 0 {
            return true;
        }
        let after = request as f64 + used as f64;
        if after > capacity as f64 {
            return false;
        }
        self.sum += after * weight as f64 / capacity as f64;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use caldera::{Arguments, Value, View};

    fn cpu(m: i64) -> Resource {
        Resource { milli_cpu: m, ..Resource::default() }
    }

    #[test]
    fn the_fuller_node_scores_higher() {
        let node = |name: &str, used| Node { name: name.into(), allocatable: cpu(4000), used: cpu(used), ..Node::default() };
        let view = View { nodes: vec![node("empty", 0), node("half", 2000), node("full", 4000)], tasks: vec![Task { request: cpu(1000), ..Task::default() }], ..View::default() };
        let args: Arguments = [("binpack.weight", Value::Int(2))].into_iter().collect();
        let s = Session::new(view, args);
        let mut b = Binpack::default();
        b.on_session_open(&s).unwrap();
        let nodes: Vec<&Node> = s.nodes().iter().collect();
        let mut scores = vec![0.0; 3];
        b.node_order_batch(&s, &s.tasks()[0], &nodes, &mut scores).unwrap();
        // Only cpu is requested: 1/4 and 3/4 full after, times 100 and the weight.
        assert_eq!(scores, [50.0, 150.0, 0.0]);
    }

    #[test]
    fn a_bad_argument_fails_the_session() {
        let args: Arguments = [("binpack.resources", Value::from("nvidia.com/gpu")), ("binpack.resources.nvidia.com/gpu", Value::from("x"))].into_iter().collect();
        let s = Session::new(View::default(), args);
        let err = Binpack::default().on_session_open(&s).unwrap_err();
        assert_eq!(err.to_string(), "binpack: argument \"binpack.resources.nvidia.com/gpu\": expected an integer, got string x");
    }
}

//! The native plugin's arguments, with Volcano's defaults.

use caldera::{Argument, Arguments, Error};

/// The strategies' weights. A weight of 0 turns a strategy off; negative
/// weights are applied as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Weights {
    pub(crate) least_requested: i64,
    pub(crate) most_requested: i64,
    pub(crate) balanced_resource: i64,
    pub(crate) node_affinity: i64,
    pub(crate) taint_toleration: i64,
    pub(crate) image_locality: i64,
    pub(crate) pod_affinity: i64,
    pub(crate) pod_topology_spread: i64,
    /// What an existing pod's required affinity term that selects the task
    /// adds to its podaffinity score (0..100).
    pub(crate) hard_pod_affinity: i64,
}

/// Caldera's own argument: kube-scheduler's
/// InterPodAffinityArgs.hardPodAffinityWeight.
const HARD_POD_AFFINITY_KEY: &str = "podaffinity.hardPodAffinityWeight";

/// Every weight with its default (hostplugins/nodeorder), in the Go port's
/// order: [`Weights::read`] reads it and the descriptor declares it.
const TABLE: [(&str, i64, fn(&mut Weights) -> &mut i64); 9] = [
    ("leastrequested.weight", 1, |w| &mut w.least_requested),
    ("mostrequested.weight", 0, |w| &mut w.most_requested),
    ("balancedresource.weight", 1, |w| &mut w.balanced_resource),
    ("nodeaffinity.weight", 2, |w| &mut w.node_affinity),
    ("tainttoleration.weight", 3, |w| &mut w.taint_toleration),
    ("podaffinity.weight", 2, |w| &mut w.pod_affinity),
    ("podtopologyspread.weight", 2, |w| &mut w.pod_topology_spread),
    ("imagelocality.weight", 1, |w| &mut w.image_locality),
    (HARD_POD_AFFINITY_KEY, 1, |w| &mut w.hard_pod_affinity),
];

/// What [`Weights::read`] reads, for the module's descriptor.
pub(crate) const DECLARED: &[Argument] = &[
    Argument::int(TABLE[0].0, TABLE[0].1),
    Argument::int(TABLE[1].0, TABLE[1].1),
    Argument::int(TABLE[2].0, TABLE[2].1),
    Argument::int(TABLE[3].0, TABLE[3].1),
    Argument::int(TABLE[4].0, TABLE[4].1),
    Argument::int(TABLE[5].0, TABLE[5].1),
    Argument::int(TABLE[6].0, TABLE[6].1),
    Argument::int(TABLE[7].0, TABLE[7].1),
    Argument::int(TABLE[8].0, TABLE[8].1),
];

impl Weights {
    /// Reads the weights as the scheduler's framework.Arguments.Int does
    /// (an integer, a whole-number float or a numeric string); keys the
    /// plugin does not read are ignored, as in Volcano.
    pub(crate) fn read(a: &Arguments) -> Result<Weights, Error> {
        let mut w = Weights::default();
        for (key, default, field) in TABLE {
            *field(&mut w) = a.int(key, default)?;
        }
        if !(0..=100).contains(&w.hard_pod_affinity) {
            return Err(format!("argument {}: {} is not in the range 0-100", HARD_POD_AFFINITY_KEY, w.hard_pod_affinity).into());
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use caldera::Value;

    use super::*;

    #[test]
    fn weights() {
        // Declared: Volcano's keys and defaults (hostplugins/nodeorder/doc.go).
        let want = [
            ("leastrequested.weight", 1),
            ("mostrequested.weight", 0),
            ("balancedresource.weight", 1),
            ("nodeaffinity.weight", 2),
            ("tainttoleration.weight", 3),
            ("podaffinity.weight", 2),
            ("podtopologyspread.weight", 2),
            ("imagelocality.weight", 1),
            ("podaffinity.hardPodAffinityWeight", 1),
        ];
        let declared: Vec<Argument> = want.iter().map(|&(k, d)| Argument::int(k, d)).collect();
        assert_eq!(DECLARED, declared.as_slice());

        let defaults = Weights {
            least_requested: 1,
            balanced_resource: 1,
            node_affinity: 2,
            taint_toleration: 3,
            pod_affinity: 2,
            pod_topology_spread: 2,
            image_locality: 1,
            hard_pod_affinity: 1,
            ..Weights::default()
        };
        assert_eq!(Weights::read(&Arguments::default()).unwrap(), defaults);

        let set: Arguments = [
            ("leastrequested.weight", Value::Int(0)),
            ("mostrequested.weight", Value::Int(4)),
            ("balancedresource.weight", Value::Float(2.0)),
            ("nodeaffinity.weight", Value::from("5")),
            ("tainttoleration.weight", Value::Int(-1)),
            ("podaffinity.weight", Value::Int(7)),
            ("podtopologyspread.weight", Value::Int(8)),
            ("imagelocality.weight", Value::Int(9)),
            ("podaffinity.hardPodAffinityWeight", Value::Int(0)),
            ("unread.weight", Value::from("ignored")),
        ]
        .into_iter()
        .collect();
        let want = Weights {
            most_requested: 4,
            balanced_resource: 2,
            node_affinity: 5,
            taint_toleration: -1,
            pod_affinity: 7,
            pod_topology_spread: 8,
            image_locality: 9,
            ..Weights::default()
        };
        assert_eq!(Weights::read(&set).unwrap(), want);

        let hard: Arguments = [(HARD_POD_AFFINITY_KEY, Value::Int(101))].into_iter().collect();
        assert_eq!(Weights::read(&hard).unwrap_err().to_string(), "argument podaffinity.hardPodAffinityWeight: 101 is not in the range 0-100");
        let wrong: Arguments = [("imagelocality.weight", Value::Float(1.5))].into_iter().collect();
        assert!(Weights::read(&wrong).unwrap_err().to_string().contains("imagelocality.weight"));
    }
}

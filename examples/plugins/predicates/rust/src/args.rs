//! The native plugin's arguments that change decisions, with Volcano's
//! defaults.

use caldera::{Argument, ArgumentError, Arguments};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Args {
    pub(crate) node_affinity: bool,
    pub(crate) node_ports: bool,
    pub(crate) taint_toleration: bool,
    pub(crate) pod_affinity: bool,
    pub(crate) pod_topology_spread: bool,
    /// A volume check or the device check is on: the scheduler runs them
    /// for the port from ABI 1.10 (claims.rs).
    pub(crate) claim_flags: bool,
}

/// The flags of the checks the scheduler runs for the port.
const CLAIM_KEYS: [&str; 4] =
    ["predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable", "predicate.VolumeBindingEnable", "predicate.DynamicResourceAllocationEnable"];

type Field = Option<fn(&mut Args) -> &mut bool>;

/// Every argument the port reads, with Volcano's defaults
/// (hostplugins/predicates.ParseArgs), in the Go port's order:
/// [`Args::read`] reads it and the descriptor declares it. An entry without
/// a field is type-checked here and read elsewhere: the volume and device
/// flags by the scheduler, which runs those checks for the port (with
/// volumebinding.* and dynamicresources.filterTimeoutSeconds); CacheEnable
/// by nobody (hostplugins/predicates/doc.go).
const TABLE: [(&str, bool, Field); 10] = [
    ("predicate.NodeAffinityEnable", true, Some(|a| &mut a.node_affinity)),
    ("predicate.NodePortsEnable", true, Some(|a| &mut a.node_ports)),
    ("predicate.TaintTolerationEnable", true, Some(|a| &mut a.taint_toleration)),
    ("predicate.PodAffinityEnable", true, Some(|a| &mut a.pod_affinity)),
    ("predicate.NodeVolumeLimitsEnable", true, None),
    ("predicate.VolumeZoneEnable", true, None),
    ("predicate.PodTopologySpreadEnable", true, Some(|a| &mut a.pod_topology_spread)),
    ("predicate.VolumeBindingEnable", true, None),
    ("predicate.DynamicResourceAllocationEnable", true, None),
    ("predicate.CacheEnable", false, None),
];

/// What [`Args::read`] reads, for the module's descriptor.
pub(crate) const DECLARED: &[Argument] = &[
    Argument::bool(TABLE[0].0, TABLE[0].1),
    Argument::bool(TABLE[1].0, TABLE[1].1),
    Argument::bool(TABLE[2].0, TABLE[2].1),
    Argument::bool(TABLE[3].0, TABLE[3].1),
    Argument::bool(TABLE[4].0, TABLE[4].1),
    Argument::bool(TABLE[5].0, TABLE[5].1),
    Argument::bool(TABLE[6].0, TABLE[6].1),
    Argument::bool(TABLE[7].0, TABLE[7].1),
    Argument::bool(TABLE[8].0, TABLE[8].1),
    Argument::bool(TABLE[9].0, TABLE[9].1),
];

impl Args {
    /// Reads the flags as the scheduler's framework.Arguments.Bool does
    /// (the SDK's reader takes the same values); absent or nil keeps the
    /// default.
    pub(crate) fn read(a: &Arguments) -> Result<Args, ArgumentError> {
        let mut out = Args::default();
        for (key, default, field) in TABLE {
            let v = a.bool(key, default)?;
            if let Some(field) = field {
                *field(&mut out) = v;
            }
            out.claim_flags = out.claim_flags || (v && CLAIM_KEYS.contains(&key));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use caldera::Value;

    use super::*;

    fn args(pairs: &[(&str, Value)]) -> Arguments {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn arguments() {
        // Declared: Volcano's keys and defaults (hostplugins/predicates.ParseArgs).
        let want = [
            ("predicate.NodeAffinityEnable", true),
            ("predicate.NodePortsEnable", true),
            ("predicate.TaintTolerationEnable", true),
            ("predicate.PodAffinityEnable", true),
            ("predicate.NodeVolumeLimitsEnable", true),
            ("predicate.VolumeZoneEnable", true),
            ("predicate.PodTopologySpreadEnable", true),
            ("predicate.VolumeBindingEnable", true),
            ("predicate.DynamicResourceAllocationEnable", true),
            ("predicate.CacheEnable", false),
        ];
        let declared: Vec<Argument> = want.iter().map(|&(k, d)| Argument::bool(k, d)).collect();
        assert_eq!(DECLARED, declared.as_slice());

        let all = Args {
            node_affinity: true,
            node_ports: true,
            taint_toleration: true,
            pod_affinity: true,
            pod_topology_spread: true,
            claim_flags: true,
        };
        let off: Vec<(&str, Value)> = want[..9]
            .iter()
            .map(|&(k, _)| (k, if k == "predicate.NodePortsEnable" { Value::Str("false".into()) } else { Value::Bool(false) }))
            .collect();
        let volumes_off = [("predicate.NodeVolumeLimitsEnable", Value::Bool(false)), ("predicate.VolumeBindingEnable", Value::Bool(false))];
        for (name, a, want) in [
            ("defaults", Arguments::default(), all),
            ("off", args(&off), Args::default()),
            ("volume flags are the scheduler's", args(&volumes_off), all),
        ] {
            assert_eq!(Args::read(&a).unwrap(), want, "{}", name);
        }
        let err = Args::read(&args(&[("predicate.CacheEnable", Value::Int(3))])).unwrap_err();
        assert!(err.to_string().contains("predicate.CacheEnable"), "ignored but type-checked: {}", err);
    }
}

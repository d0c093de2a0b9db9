//! The plugin's arguments, as Volcano names them: weights 1, normal pods
//! packed by hypernode with a fading of 0.8 per tier, at most 8 hypernodes
//! offered for eviction. A negative weight or fading, and an eviction bound
//! below 1, count as the default.

use std::collections::BTreeMap;

use caldera::{Argument, ArgumentError, Arguments, Error, Value};

const WEIGHT: &str = "weight";
const BINPACK_CPU: &str = "hypernode.binpack.cpu";
const BINPACK_MEMORY: &str = "hypernode.binpack.memory";
const BINPACK_RESOURCES: &str = "hypernode.binpack.resources";
/// The prefix of a listed resource's weight, and the name the descriptor
/// gives that family of arguments.
const BINPACK_RESOURCE_PREFIX: &str = "hypernode.binpack.resources.";
const BINPACK_RESOURCE_WEIGHT: &str = "hypernode.binpack.resources.<name>";
const NORMAL_POD_ENABLE: &str = "hypernode.binpack.normal-pod.enable";
const NORMAL_POD_FADING: &str = "hypernode.binpack.normal-pod.fading";
const EVICT_MAX: &str = "hypernode.gradient.evict.max-hypernodes";

const DEFAULT_WEIGHT: i64 = 1;
const DEFAULT_EVICT_MAX: i64 = 8;
const DEFAULT_NORMAL_PODS: bool = true;
const DEFAULT_FADING: f64 = 0.8;

/// What [`Args::read`] reads, for the module's descriptor.
pub(crate) const DECLARED: &[Argument] = &[
    Argument::int(WEIGHT, DEFAULT_WEIGHT),
    Argument::int(BINPACK_CPU, DEFAULT_WEIGHT),
    Argument::int(BINPACK_MEMORY, DEFAULT_WEIGHT),
    Argument::int(EVICT_MAX, DEFAULT_EVICT_MAX),
    Argument::bool(NORMAL_POD_ENABLE, DEFAULT_NORMAL_PODS),
    Argument::float(NORMAL_POD_FADING, DEFAULT_FADING),
    Argument::str(BINPACK_RESOURCES, ""),
    Argument::int(BINPACK_RESOURCE_WEIGHT, DEFAULT_WEIGHT),
];

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Args {
    pub(crate) weight: i64,
    cpu: i64,
    memory: i64,
    /// The weights of the resources listed in hypernode.binpack.resources.
    scalars: BTreeMap<String, i64>,
    pub(crate) normal_pods: bool,
    pub(crate) fading: f64,
    pub(crate) evict_max: i64,
}

/// A negative weight counts as the default, as in Volcano.
fn weight(w: i64) -> i64 {
    if w < 0 {
        DEFAULT_WEIGHT
    } else {
        w
    }
}

impl Args {
    /// Reads the arguments as the native plugin does, refusing a key it
    /// does not know (the scheduler's `wasm.` options aside).
    pub(crate) fn read(a: &Arguments) -> Result<Args, Error> {
        let mut out = Args {
            weight: weight(a.int(WEIGHT, DEFAULT_WEIGHT)?),
            cpu: weight(a.int(BINPACK_CPU, DEFAULT_WEIGHT)?),
            memory: weight(a.int(BINPACK_MEMORY, DEFAULT_WEIGHT)?),
            evict_max: a.int(EVICT_MAX, DEFAULT_EVICT_MAX)?,
            normal_pods: a.bool(NORMAL_POD_ENABLE, DEFAULT_NORMAL_PODS)?,
            fading: a.float(NORMAL_POD_FADING, DEFAULT_FADING)?,
            scalars: BTreeMap::new(),
        };
        if out.evict_max <= 0 {
            out.evict_max = DEFAULT_EVICT_MAX;
        }
        if out.fading < 0.0 {
            out.fading = DEFAULT_FADING;
        }
        let mut known = vec![
            WEIGHT.to_string(),
            BINPACK_CPU.into(),
            BINPACK_MEMORY.into(),
            BINPACK_RESOURCES.into(),
            NORMAL_POD_ENABLE.into(),
            NORMAL_POD_FADING.into(),
            EVICT_MAX.into(),
        ];
        for name in string(a, BINPACK_RESOURCES)?.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let key = format!("{}{}", BINPACK_RESOURCE_PREFIX, name);
            out.scalars.insert(name.to_string(), weight(a.int(&key, DEFAULT_WEIGHT)?));
            known.push(key);
        }
        let unknown: Vec<&str> = a.iter().map(|(k, _)| k).filter(|k| !known.iter().any(|n| n == k) && !k.starts_with("wasm.")).collect();
        if !unknown.is_empty() {
            return Err(format!(
                "unknown arguments {} (a {}NAME weight needs NAME listed in {})",
                unknown.join(", "),
                BINPACK_RESOURCE_PREFIX,
                BINPACK_RESOURCES
            )
            .into());
        }
        Ok(out)
    }

    /// A resource's weight in hypernode binpacking; `None` when it does not
    /// count.
    pub(crate) fn weight_of(&self, name: &str) -> Option<i64> {
        match name {
            "cpu" => Some(self.cpu),
            "memory" => Some(self.memory),
            _ => self.scalars.get(name).copied(),
        }
    }
}

/// A string argument, "" when absent or nil; another type is an error, in
/// the words of the scheduler's and the Go SDK's readers.
fn string<'a>(a: &'a Arguments, key: &str) -> Result<&'a str, ArgumentError> {
    match a.get(key) {
        None | Some(Value::Nil) => Ok(""),
        Some(Value::Str(s)) => Ok(s),
        Some(other) => Err(ArgumentError { key: key.to_string(), expected: "a string", got: other.clone() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_what_counts_as_them() {
        let args = Args::read(&Arguments::default()).unwrap();
        assert_eq!(
            (args.weight, args.weight_of("cpu"), args.weight_of("memory"), args.evict_max, args.normal_pods, args.fading),
            (1, Some(1), Some(1), 8, true, 0.8)
        );
        assert_eq!(args.weight_of("nvidia.com/gpu"), None);
        let a: Arguments =
            [(WEIGHT, Value::Int(-3)), (EVICT_MAX, Value::Int(0)), (NORMAL_POD_FADING, Value::Float(-0.5)), (BINPACK_CPU, Value::Int(4))]
                .into_iter()
                .collect();
        let args = Args::read(&a).unwrap();
        assert_eq!((args.weight, args.weight_of("cpu"), args.evict_max, args.fading), (1, Some(4), 8, 0.8));
        // The declared defaults are the ones read.
        let names: Vec<&str> = DECLARED.iter().map(Argument::name).collect();
        assert_eq!(names[..4], [WEIGHT, BINPACK_CPU, BINPACK_MEMORY, EVICT_MAX]);
        assert_eq!(DECLARED[5], Argument::float(NORMAL_POD_FADING, 0.8));
    }

    #[test]
    fn listed_resources_take_weights_and_others_are_refused() {
        let a: Arguments = [
            (BINPACK_RESOURCES, Value::from(" nvidia.com/gpu, ,example.com/fpga")),
            ("hypernode.binpack.resources.nvidia.com/gpu", Value::Int(5)),
            ("wasm.ignorable", Value::Bool(true)),
        ]
        .into_iter()
        .collect();
        let args = Args::read(&a).unwrap();
        assert_eq!((args.weight_of("nvidia.com/gpu"), args.weight_of("example.com/fpga")), (Some(5), Some(1)));
        let a: Arguments = [("hypernode.binpack.resources.nvidia.com/gpu", Value::Int(5)), ("wieght", Value::Int(2))].into_iter().collect();
        assert_eq!(
            Args::read(&a).unwrap_err().to_string(),
            "unknown arguments hypernode.binpack.resources.nvidia.com/gpu, wieght (a hypernode.binpack.resources.NAME weight needs NAME listed in hypernode.binpack.resources)"
        );
        let a: Arguments = [(BINPACK_RESOURCES, Value::Int(3))].into_iter().collect();
        assert_eq!(Args::read(&a).unwrap_err().to_string(), "argument \"hypernode.binpack.resources\": expected a string, got int64 3");
        let a: Arguments = [(NORMAL_POD_ENABLE, Value::from("maybe"))].into_iter().collect();
        assert_eq!(
            Args::read(&a).unwrap_err().to_string(),
            "argument \"hypernode.binpack.normal-pod.enable\": expected true or false, got string maybe"
        );
    }
}

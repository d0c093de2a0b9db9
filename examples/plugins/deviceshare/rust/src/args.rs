//! The native plugin's arguments (hostplugins/deviceshare/args.go), read
//! in its order and refused in its words.

use caldera::{Argument, ArgumentError, Arguments, Error, Value};

pub(crate) const SHARING: &str = "deviceshare.GPUSharingEnable";
pub(crate) const NUMBER: &str = "deviceshare.GPUNumberEnable";
const NODE_LOCK: &str = "deviceshare.NodeLockEnable";
const VGPU: &str = "deviceshare.VGPUEnable";
const MIND_CLUSTER_VNPU: &str = "deviceshare.AscendMindClusterVNPUEnable";
const HAMI_VNPU: &str = "deviceshare.AscendHAMiVNPUEnable";
const SCHEDULE_POLICY: &str = "deviceshare.SchedulePolicy";
const SCHEDULE_WEIGHT: &str = "deviceshare.ScheduleWeight";
const GEOMETRIES_NAME: &str = "deviceshare.KnownGeometriesCMName";
const GEOMETRIES_NAMESPACE: &str = "deviceshare.KnownGeometriesCMNamespace";
const EXCLUSIVE_RULES: &str = "deviceshare.GPUExclusiveRules";

/// Every key the native plugin knows, in its order: any other is refused.
const KNOWN: [&str; 11] = [
    SHARING,
    NUMBER,
    NODE_LOCK,
    VGPU,
    MIND_CLUSTER_VNPU,
    HAMI_VNPU,
    SCHEDULE_POLICY,
    SCHEDULE_WEIGHT,
    GEOMETRIES_NAME,
    GEOMETRIES_NAMESPACE,
    EXCLUSIVE_RULES,
];

/// The device kinds and options the native plugin refuses when switched on,
/// each with what it concerns.
const NOT_IMPLEMENTED: [(&str, &str); 4] = [
    (NODE_LOCK, "the node lock the GPU device plugin reads"),
    (VGPU, "vGPU sharing (HAMi)"),
    (MIND_CLUSTER_VNPU, "Ascend 310P vNPU (MindCluster)"),
    (HAMI_VNPU, "Ascend vNPU (HAMi)"),
];

/// What [`Args::read`] reads, for the module's descriptor: every key but
/// the exclusive rules, a list the descriptor's types cannot say, refused
/// whatever its value.
pub(crate) const DECLARED: &[Argument] = &[
    Argument::bool(SHARING, false),
    Argument::bool(NUMBER, false),
    Argument::bool(NODE_LOCK, false),
    Argument::bool(VGPU, false),
    Argument::bool(MIND_CLUSTER_VNPU, false),
    Argument::bool(HAMI_VNPU, false),
    Argument::str(SCHEDULE_POLICY, ""),
    Argument::int(SCHEDULE_WEIGHT, 0),
    Argument::str(GEOMETRIES_NAME, ""),
    Argument::str(GEOMETRIES_NAMESPACE, ""),
];

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Args {
    pub(crate) sharing: bool,
    pub(crate) number: bool,
    /// Score vGPU and vNPU devices in Volcano; GPU sharing and GPU numbers
    /// score 0 whatever they say, so they change nothing here.
    pub(crate) policy: String,
    pub(crate) weight: i64,
}

impl Args {
    /// Reads the arguments as the native plugin does, refusing what it
    /// refuses in the same order; the scheduler's `wasm.` options are not
    /// the plugin's.
    pub(crate) fn read(a: &Arguments) -> Result<Args, Error> {
        let mut out = Args { sharing: a.bool(SHARING, false)?, number: a.bool(NUMBER, false)?, ..Args::default() };
        if out.sharing && out.number {
            // Volcano stops the scheduler for it.
            return Err(format!("{} and {} cannot both be true", SHARING, NUMBER).into());
        }
        for (key, what) in NOT_IMPLEMENTED {
            if a.bool(key, false)? {
                return Err(format!("{}: {} is not implemented in Caldera (README, \"Volcano's plugins and actions\")", key, what).into());
            }
        }
        if a.get(EXCLUSIVE_RULES).is_some() {
            return Err(format!(
                "{}: exclusive vGPU rules are not implemented in Caldera (README, \"Volcano's plugins and actions\")",
                EXCLUSIVE_RULES
            )
            .into());
        }
        out.policy = string(a, SCHEDULE_POLICY)?.to_string();
        if !matches!(out.policy.as_str(), "" | "binpack" | "spread") {
            return Err(format!("argument {}: {} is neither binpack nor spread", quote(SCHEDULE_POLICY), quote(&out.policy)).into());
        }
        out.weight = a.int(SCHEDULE_WEIGHT, 0)?;
        // The vGPU geometry ConfigMap: read for vGPU and HAMi vNPU only,
        // which are refused above; accepted so that Volcano's
        // configurations load.
        for key in [GEOMETRIES_NAME, GEOMETRIES_NAMESPACE] {
            string(a, key)?;
        }
        let unknown: Vec<&str> = a.iter().map(|(k, _)| k).filter(|k| !KNOWN.contains(k) && !k.starts_with("wasm.")).collect();
        if !unknown.is_empty() {
            return Err(format!("unknown arguments {}: expected some of {}", quote_list(&unknown), quote_list(&KNOWN)).into());
        }
        Ok(out)
    }
}

/// A string argument, "" when absent or nil; another type is an error, in
/// the words of the scheduler's readers.
fn string<'a>(a: &'a Arguments, key: &str) -> Result<&'a str, ArgumentError> {
    match a.get(key) {
        None | Some(Value::Nil) => Ok(""),
        Some(Value::Str(s)) => Ok(s),
        Some(other) => Err(ArgumentError { key: key.to_string(), expected: "a string", got: other.clone() }),
    }
}

/// A string quoted as Go's %q quotes a printable one.
fn quote(s: &str) -> String {
    format!("{:?}", s)
}

/// A list of strings as Go's %q writes a []string: `["a" "b"]`.
fn quote_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", quoted.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, Value)]) -> Arguments {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn defaults_and_accepted_configurations() {
        assert_eq!(Args::read(&Arguments::default()).unwrap(), Args::default());
        let a = args(&[
            (NUMBER, Value::Bool(true)),
            (VGPU, Value::Bool(false)),
            (SCHEDULE_POLICY, Value::from("binpack")),
            (SCHEDULE_WEIGHT, Value::Int(10)),
            (GEOMETRIES_NAME, Value::from("volcano-vgpu-device-config")),
            ("wasm.ignorable", Value::Bool(true)),
        ]);
        let want = Args { number: true, policy: "binpack".into(), weight: 10, ..Args::default() };
        assert_eq!(Args::read(&a).unwrap(), want);
        assert!(Args::read(&args(&[(SHARING, Value::from("yes"))])).unwrap().sharing, "YAML 1.1's words");
        let names: Vec<&str> = DECLARED.iter().map(Argument::name).collect();
        assert_eq!(names, KNOWN[..10]);
    }

    /// hostplugins/deviceshare's TestArguments, with the words.
    #[test]
    fn refusals() {
        let exclusive = Value::Array(vec![Value::Map(vec![(Value::from("team"), Value::from("a"))])]);
        let cases = [
            ("both kinds", args(&[(SHARING, Value::Bool(true)), (NUMBER, Value::Bool(true))]),
                "deviceshare.GPUSharingEnable and deviceshare.GPUNumberEnable cannot both be true"),
            ("vgpu", args(&[(VGPU, Value::Bool(true))]),
                "deviceshare.VGPUEnable: vGPU sharing (HAMi) is not implemented in Caldera (README, \"Volcano's plugins and actions\")"),
            ("node lock", args(&[(SHARING, Value::Bool(true)), (NODE_LOCK, Value::Bool(true))]),
                "deviceshare.NodeLockEnable: the node lock the GPU device plugin reads is not implemented in Caldera (README, \"Volcano's plugins and actions\")"),
            ("ascend", args(&[(HAMI_VNPU, Value::Bool(true))]),
                "deviceshare.AscendHAMiVNPUEnable: Ascend vNPU (HAMi) is not implemented in Caldera (README, \"Volcano's plugins and actions\")"),
            ("mindcluster", args(&[(MIND_CLUSTER_VNPU, Value::from("on"))]),
                "deviceshare.AscendMindClusterVNPUEnable: Ascend 310P vNPU (MindCluster) is not implemented in Caldera (README, \"Volcano's plugins and actions\")"),
            ("exclusive rules", args(&[(EXCLUSIVE_RULES, exclusive)]),
                "deviceshare.GPUExclusiveRules: exclusive vGPU rules are not implemented in Caldera (README, \"Volcano's plugins and actions\")"),
            ("exclusive rules, nil", args(&[(EXCLUSIVE_RULES, Value::Nil)]),
                "deviceshare.GPUExclusiveRules: exclusive vGPU rules are not implemented in Caldera (README, \"Volcano's plugins and actions\")"),
            ("policy", args(&[(SCHEDULE_POLICY, Value::from("random"))]),
                "argument \"deviceshare.SchedulePolicy\": \"random\" is neither binpack nor spread"),
            ("weight", args(&[(SCHEDULE_WEIGHT, Value::from("heavy"))]),
                "argument \"deviceshare.ScheduleWeight\": expected an integer, got string heavy"),
            ("sharing", args(&[(SHARING, Value::from("maybe"))]),
                "argument \"deviceshare.GPUSharingEnable\": expected true or false, got string maybe"),
            ("geometries", args(&[(GEOMETRIES_NAMESPACE, Value::Int(3))]),
                "argument \"deviceshare.KnownGeometriesCMNamespace\": expected a string, got int64 3"),
            ("unknown", args(&[("deviceshare.GPUShareEnable", Value::Bool(true)), ("weight", Value::Int(1))]),
                "unknown arguments [\"deviceshare.GPUShareEnable\" \"weight\"]: expected some of [\"deviceshare.GPUSharingEnable\" \
                 \"deviceshare.GPUNumberEnable\" \"deviceshare.NodeLockEnable\" \"deviceshare.VGPUEnable\" \
                 \"deviceshare.AscendMindClusterVNPUEnable\" \"deviceshare.AscendHAMiVNPUEnable\" \"deviceshare.SchedulePolicy\" \
                 \"deviceshare.ScheduleWeight\" \"deviceshare.KnownGeometriesCMName\" \"deviceshare.KnownGeometriesCMNamespace\" \
                 \"deviceshare.GPUExclusiveRules\"]"),
        ];
        for (name, a, want) in cases {
            match Args::read(&a) {
                Ok(got) => panic!("{}: accepted as {:?}", name, got),
                Err(e) => assert_eq!(e.to_string(), want, "{}", name),
            }
        }
    }
}

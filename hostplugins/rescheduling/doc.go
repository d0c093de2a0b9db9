// Package rescheduling is the native "rescheduling" plugin: once per
// interval it names running pods for the shuffle action to evict, moving
// load off busy nodes while quiet ones have room.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/rescheduling), whose one strategy is
// lowNodeUtilization:
//
//   - Timing: the strategies run in the first session at least `interval`
//     (5m) after the last run; the clock starts with the process, so the
//     first run is one interval after start. In other sessions the plugin
//     names nothing and the next tier's victim hooks answer.
//   - Use: each node's CPU and memory use in percent, the average over
//     `metricsPeriod` (5m) that the configuration's metrics source
//     measured (0 when none was). Volcano's sources measure only the 10m
//     average, which its default 5m never reads; Caldera logs a warning
//     for a period no source measures and reads 0 likewise.
//   - Nodes under every `thresholds` percentage (and not cordoned) are
//     quiet; the others over some `targetThresholds` percentage are busy.
//     Nothing is named unless some nodes are quiet, some busy, and not all
//     quiet. Defaults 100 for both leave every node quiet or neither.
//   - Room: the sum over quiet nodes of (target - use) of their
//     allocatable CPU and memory.
//   - Busiest nodes first (CPU + memory percent); on each, its pods
//     without a priority, then by priority, then BestEffort, Burstable,
//     Guaranteed; running ones are named while the node is at or over a
//     target and the room is not exactly zero, each taking its request off
//     the room and off the node's use (as a share of its capacity).
//
// Differences, all deterministic where Volcano is not or unsafe: ties in
// node and pod order fall by name; a named pod is matched to the running
// tasks by UID, where Volcano matches by pod name alone (a pod of another
// namespace with the same name could be taken).
//
// Arguments: interval (a Go duration, 5m), metricsPeriod (5m), strategies
// (a list of {name: lowNodeUtilization, params: {thresholds: {cpu, memory},
// targetThresholds: {cpu, memory}}}). A strategy other than
// lowNodeUtilization, a malformed interval (Volcano falls back to 5m) or an
// unknown key is refused. Thresholds for pods, and the parameters
// thresholdPriorityClassName, thresholdPriority, nodeFit and numberOfNodes,
// which Volcano's strategy does not read, are accepted with a warning and
// change nothing, as there.
package rescheduling

// Package usage is the native "usage" plugin: nodes are filtered and
// scored by their measured load, the CPU and memory in use averaged over
// the last ten minutes (api.UsagePeriod), as a metrics source reports it
// (the configuration's metrics section, docs/configuration.md; in
// `caldera simulate`, a node annotation).
//
// It follows Volcano v1.15's plugin of the same name
// (volcano-sh/volcano@8fc394c11e8d (v1.15.0), pkg/scheduler/plugins/usage):
//
//   - A measure counts when it was taken at most five minutes before the
//     session opened (Volcano compares with the time of each call); a node
//     with no measure, or an older one, passes the predicate and scores 0.
//   - Predicate: a node whose CPU usage is over thresholds.cpu fails with
//     "the CPU load of the node exceeds the upper limit."; else one whose
//     memory usage is over thresholds.mem fails with "the memory load of
//     the node exceeds the upper limit.". Both are
//     UnschedulableAndUnresolvable: preempt and reclaim skip the node.
//   - Score: ((100 - cpu)/100 x cpu.weight + (100 - memory)/100 x
//     memory.weight) / (cpu.weight + memory.weight) x 100 x usage.weight.
//     A node without a value for the period scores 0.
//
// enablePredicate and enableNodeOrder switch the two off, as for any
// plugin; Volcano's documentation suggests enablePredicate: false to
// score by load without ever refusing a node.
//
// Arguments, Volcano's: usage.weight (5), cpu.weight (1), memory.weight
// (1), thresholds ({cpu: 80, mem: 80}, whole percentages). Unlike Volcano,
// Caldera refuses an unknown key (in the arguments or in thresholds), a
// thresholds value that is not a mapping (Volcano logs it and keeps the
// defaults), a threshold that is not a whole number (Volcano takes it as
// 0, which shuts every measured node), and cpu.weight and memory.weight
// that add up to 0 (Volcano divides by the sum and scores NaN or an
// infinity).
package usage

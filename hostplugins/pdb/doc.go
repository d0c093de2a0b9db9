// Package pdb is the native "pdb" plugin: preemption and reclaim take no
// victim that a PodDisruptionBudget (policy/v1) protects.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/pdb/pdb.go):
//
//   - Preemptable, Reclaimable and VictimTasks filter the candidates in
//     their order. Each budget starts from its status.disruptionsAllowed; a
//     candidate uses one disruption of every budget in its namespace whose
//     selector matches its labels (an empty selector matches nothing) and
//     that does not list it in status.disruptedPods, and is kept out of the
//     victims when any of those budgets goes below zero. Preemptable and
//     Reclaimable always vote.
//   - As in Volcano, a candidate pod without labels is never a victim.
//
// The budgets are the ones the scheduler's cache watches (RBAC: list and
// watch poddisruptionbudgets). VictimTasks is asked by the shuffle action,
// which evicts every pod it names: with pdb alone, every pod the budgets
// let go, as in Volcano. The plugin takes no arguments.
package pdb

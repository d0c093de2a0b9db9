// Package cdp is the native "cdp" plugin, cool-down protection: a running
// pod that carries a cool-down time may not be preempted or reclaimed
// until that long after it was scheduled, so that an elastic job's pods are
// not taken back as soon as they start.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/cdp/cdp.go):
//
//   - The cool-down time is the pod's label volcano.sh/cooldown-time, else
//     its annotation of that name, as a Go duration ("600s", "10m").
//   - Preemptable and Reclaimable: a candidate is kept out of the victims
//     while it is Running and its PodScheduled condition turned True less
//     than the cool-down time ago. Every other candidate (no cool-down, not
//     Running, no such condition) stays a victim. The plugin always votes.
//
// A cool-down value that is not a duration protects nothing, as in Volcano;
// the scheduler logs it once per pod and value. The plugin takes no
// arguments.
package cdp

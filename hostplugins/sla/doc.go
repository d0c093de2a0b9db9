// Package sla is the native "sla" plugin: a job may wait at most its SLA
// waiting time. Jobs whose deadline (PodGroup creation plus waiting time)
// comes sooner go first, and a job past its deadline is let into the queue
// and kept pipelined whatever resources it lacks.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/sla/sla.go):
//
//   - The waiting time of a job is its PodGroup's annotation
//     volcano.sh/sla-waiting-time, else sla-waiting-time, else the
//     plugin's argument sla-waiting-time; none of them means no SLA. An
//     annotation that is not a positive duration is logged and the job has
//     no SLA from it (the next source is read), as Volcano does.
//   - JobOrder: a job with a waiting time goes before one without; of two
//     with, the earlier deadline goes first; equal deadlines and two jobs
//     without are left to the next plugin.
//   - JobEnqueueable and JobPipelined: a job past its deadline is permitted;
//     any other abstains.
//
// The argument sla-waiting-time takes a Go duration ("1h2m3s"). Volcano
// logs a value that is not a string or not positive and runs without a
// global waiting time; Caldera refuses such a configuration at load.
package sla

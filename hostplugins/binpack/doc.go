// Package binpack scores nodes by how full they would be after placing a task,
// so that tasks are packed onto few nodes and large ones keep finding room.
// It decides exactly as Volcano v1.15's binpack plugin.
//
// For every dimension the task asks for (cpu, memory and each extended
// resource with a configured weight), the share of the node's allocatable in
// use once the task is placed is multiplied by the dimension's weight; the
// weighted shares are averaged over the weights and scaled to 0..100
// (kube-scheduler's MaxNodeScore), then multiplied by binpack.weight. A node on
// which any requested dimension would overflow scores 0.
//
//	score = 100 * binpack.weight * Σ_r w_r*(used_r+request_r)/allocatable_r / Σ_r w_r
//
// Arguments (Volcano's names and defaults):
//
//	binpack.weight               1   the plugin's weight; 0 turns scoring off
//	binpack.cpu                  1   weight of cpu (negative means 1)
//	binpack.memory               1   weight of memory (negative means 1)
//	binpack.resources            ""  comma-separated extended resources to count
//	binpack.resources.<name>     1   weight of one listed resource (negative means 1)
//
// A resource the task asks for but that is not listed is ignored; one that is
// listed but that the node lacks counts in the weight sum with a share of 0.
// Keys Volcano does not read are accepted and ignored, as Volcano does.
package binpack

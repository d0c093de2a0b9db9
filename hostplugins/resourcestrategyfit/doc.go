// Package resourcestrategyfit is the native "resource-strategy-fit"
// plugin: nodes scored per resource by LeastAllocated or MostAllocated
// strategies, scarce resource avoidance (sra), and the proportional
// predicate that keeps CPU and memory idle beside scarce resources.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/resource-strategy-fit):
//
//   - Score: for each resource the task requests that has a strategy, the
//     share of the node's allocatable that would be free (LeastAllocated)
//     or used (MostAllocated) once the task is added to what the node's
//     tasks use, times the resource's weight; the weighted mean, times 100
//     and resourceStrategyFitWeight. A node where the task would exceed
//     the allocatable of a scored resource scores 0; a resource the node
//     has none of scores 0 and still counts its weight. The strategy of a
//     resource is the exact name's, else the wildcard pattern's ("vendor/*")
//     with the longest prefix. A pod's annotations
//     volcano.sh/resource-strategy-scoring-type (the type for all its
//     resources) and volcano.sh/resource-strategy-weight (a JSON object of
//     resource weights; resources it leaves out are not scored) replace
//     the configured strategies; with the type and no readable weights the
//     pod scores 0, as in Volcano, and Caldera logs it once.
//   - sra: a task that the node can hold in every resource it requests
//     scores 100 x sra.weight x (1 - the weighted share of sra.resources
//     the node has), so tasks that need no scarce resource keep off nodes
//     that have them.
//   - proportional: a task that requests none of proportional.resources
//     fails (UnschedulableAndUnresolvable, "proportional of resource R
//     check failed") on a node whose idle CPU or memory, less the task's,
//     would fall below the node's idle R times resourceProportion "R.cpu"
//     (CPUs per device) or "R.memory" (GB per device).
//
// Arguments, Volcano's: resourceStrategyFitWeight (10), resources
// ({name: {type, weight}}, default cpu and memory LeastAllocated 1), sra
// ({enable, resources, weight, resourceWeight}), proportional ({enable,
// resources, resourceProportion}). Unlike Volcano, which warns and goes on,
// Caldera refuses a strategy type other than LeastAllocated and
// MostAllocated, a wildcard other than one trailing "*" after a prefix,
// and unknown keys.
package resourcestrategyfit

// Package deviceshare is the native "deviceshare" plugin for Volcano's GPU
// sharing and GPU-number requests: pods ask for a share of one GPU's memory
// (`volcano.sh/gpu-memory` in a container's limits) or for whole GPUs
// (`volcano.sh/gpu-number`), and the cards they get are written on the pod
// at bind for the device plugin to read.
//
// It follows Volcano v1.15's plugin (pkg/scheduler/plugins/deviceshare)
// and its GpuShare device (pkg/scheduler/api/devices/nvidia/gpushare),
// with deviceshare.GPUSharingEnable or deviceshare.GPUNumberEnable on:
//
//   - Cards: a node with both `volcano.sh/gpu-memory` (all cards' memory)
//     and `volcano.sh/gpu-number` in its capacity has that many cards,
//     each with an even share of the memory (integer division), less
//     those its annotation `volcano.sh/gpu-unhealthy-ids` ("1,3") lists.
//     Pods already on the node hold the cards their `volcano.sh/gpu-index`
//     names (finished pods are not on their node, as in Volcano's cache);
//     a card no pod holds is idle.
//   - A pod's request is the sum over its containers' limits, or the
//     largest init container's when that is more.
//   - Predicate: with sharing, some card must have the pod's memory free
//     ("GpuShare no enough gpu memory on node N"); with numbers, the node
//     must have that many idle cards ("GpuNumber no enough gpu number on
//     node N"); both Unschedulable. A node without cards passes: the
//     resource fit turns away a pod asking for what the node lacks.
//   - Allocate events give the pod the first card (by ID) with its memory
//     free, or the first idle cards; deallocate events take them back. At
//     bind the pod is annotated `volcano.sh/gpu-index` ("0" or "0,2") and
//     `volcano.sh/predicate-time` (Unix nanoseconds) before the Binding is
//     created; if the annotations cannot be written the pod is not bound.
//
// Differences: Volcano writes the annotations from the predicates plugin's
// allocate event, an API call per tentative placement (and one to remove
// them per undone placement), and only when predicates is configured;
// Caldera writes them once, at bind, from this plugin. Volcano gives whole
// cards in map order; Caldera gives the lowest idle IDs. A card its pods
// overcommit has nothing free, as in the newest stored Volcano
// (ed72c7c81); v1.15.0 counted its free memory unsigned, so such a card
// looked almost empty.
//
// The cards and requests are read in package scheduler/gpushare, which
// the Wasm view uses too (ABI 1.12, Node.gpus): the examples/plugins
// deviceshare port decides as this plugin does.
//
// Arguments: deviceshare.GPUSharingEnable, deviceshare.GPUNumberEnable
// (false; both true is refused, as Volcano stops on it),
// deviceshare.SchedulePolicy (binpack or spread) and
// deviceshare.ScheduleWeight (0), which score vGPU and vNPU devices in
// Volcano and give GPU sharing and numbers 0, so they change nothing here;
// deviceshare.KnownGeometriesCMName and KnownGeometriesCMNamespace, read for
// vGPU only. Not implemented, refused when true or set:
// deviceshare.NodeLockEnable, deviceshare.VGPUEnable,
// deviceshare.AscendMindClusterVNPUEnable, deviceshare.AscendHAMiVNPUEnable,
// deviceshare.GPUExclusiveRules. Unknown keys are refused.
package deviceshare

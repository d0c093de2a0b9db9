// Package abi is the host's side of the Caldera Wasm ABI: the version, the
// export names, the hook table, the status codes and the msgpack shapes that
// cross the boundary. docs/abi.md is the specification; this package and the
// guest SDKs implement it.
package abi

import "fmt"

// The ABI version this host speaks. A module of another major is refused; a
// module of any minor of this major is served (minors only add).
//
// 1.0: session_open, session_close, predicate_batch, node_order_batch;
// events 1-5.
// 1.1: every other hook of section 5, the descriptor's stableKeys, event 6
// (enqueue), and the view fields minTaskMember, priorityClassName and
// bestEffort.
// 1.2: cache_event, the hook of event handler modules, and the
// descriptor's eventKinds.
// 1.3: the descriptor's undoEvents: such a module's deltas leave out the
// objects that only the previous session's events changed.
// 1.4: the view fields of the rules that depend on other pods: tasks'
// terminating, podAffinity, podAntiAffinity, affinityError,
// spreadConstraints and images; nodes' images and others; the view's
// namespaces.
// 1.5: session_open's abi, the host's version; pre_predicate's domain
// rules.
// 1.6: session_close's fitErrors.
// 1.7: queues' parent, deserved and reclaimable.
// 1.8: evictable, the victim filter of gangpreempt and gangreclaim.
// 1.9: the view's hypernodes and jobs' network topology;
// hyper_node_order and hyper_node_gradient; node_order_batch's
// jobHyperNode.
// 1.10: the descriptor's claimChecks and predicate_batch's claims; the
// view's taskClaims and volumeLimits.
// 1.11: a delta list's keep runs.
// 1.12: allocate, which may refuse a placement and give the pod
// annotations for its bind; nodes' gpus and tasks' gpuMemory and gpuNumber.
const (
	Major = 1
	Minor = 12
)

// Version is a module's declared ABI version.
type Version struct{ Major, Minor uint16 }

// Unpack reads the value of caldera_abi_version: major<<16 | minor.
func Unpack(v uint32) Version { return Version{Major: uint16(v >> 16), Minor: uint16(v)} }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Names of the exports a module provides.
const (
	ExportMemory     = "memory"
	ExportInitialize = "_initialize"
	ExportVersion    = "caldera_abi_version"
	ExportBuffer     = "caldera_buffer"
	ExportDescribe   = "caldera_describe"
	ExportCall       = "caldera_call"
)

// HostModule is the import module of the host functions.
const HostModule = "caldera"

// Hook identifies a hook in caldera_call. IDs are stable within a major.
type Hook uint32

// The hooks of ABI 1.0 (docs/abi.md section 5).
const (
	HookSessionOpen    Hook = 1
	HookSessionClose   Hook = 2
	HookJobOrderKeys   Hook = 3
	HookJobOrder       Hook = 4
	HookTaskOrderKeys  Hook = 5
	HookQueueOrderKeys Hook = 6
	HookPrePredicate   Hook = 7
	HookPredicateBatch Hook = 8
	HookNodeOrderBatch Hook = 9
	HookBestNode       Hook = 10
	HookPreemptable    Hook = 11
	HookReclaimable    Hook = 12
	HookOverused       Hook = 13
	HookAllocatable    Hook = 14
	HookJobReady       Hook = 15
	HookJobPipelined   Hook = 16
	HookJobValid       Hook = 17
	HookJobEnqueueable Hook = 18
	HookJobEnqueued    Hook = 19
	HookJobStarving    Hook = 20
	HookVictimTasks    Hook = 21
	HookPreemptive     Hook = 22
	// Added while 1.0 was a draft.
	HookVictimQueueOrderKeys Hook = 23
	HookTargetJob            Hook = 24
	// Added in 1.8; 25 is cache_event (event.go).
	HookEvictable Hook = 26
	// Added in 1.9.
	HookHyperNodeOrder    Hook = 27
	HookHyperNodeGradient Hook = 28
	// Added in 1.12.
	HookAllocate Hook = 29
)

var hookNames = map[Hook]string{
	HookSessionOpen: "session_open", HookSessionClose: "session_close",
	HookJobOrderKeys: "job_order_keys", HookJobOrder: "job_order",
	HookTaskOrderKeys: "task_order_keys", HookQueueOrderKeys: "queue_order_keys",
	HookPrePredicate: "pre_predicate", HookPredicateBatch: "predicate_batch",
	HookNodeOrderBatch: "node_order_batch", HookBestNode: "best_node",
	HookPreemptable: "preemptable", HookReclaimable: "reclaimable",
	HookOverused: "overused", HookAllocatable: "allocatable",
	HookJobReady: "job_ready", HookJobPipelined: "job_pipelined", HookJobValid: "job_valid",
	HookJobEnqueueable: "job_enqueueable", HookJobEnqueued: "job_enqueued",
	HookJobStarving: "job_starving", HookVictimTasks: "victim_tasks", HookPreemptive: "preemptive",
	HookVictimQueueOrderKeys: "victim_queue_order_keys", HookTargetJob: "target_job",
	HookCacheEvent: "cache_event", HookEvictable: "evictable",
	HookHyperNodeOrder: "hyper_node_order", HookHyperNodeGradient: "hyper_node_gradient",
	HookAllocate: "allocate",
}

// String returns the hook's name as modules declare it.
func (h Hook) String() string {
	if n, ok := hookNames[h]; ok {
		return n
	}
	return fmt.Sprintf("hook(%d)", uint32(h))
}

// HookByName returns the hook a module declares by name.
func HookByName(name string) (Hook, bool) {
	for h, n := range hookNames {
		if n == name {
			return h, true
		}
	}
	return 0, false
}

// Code is the status of a guest's reply. 0-5 are the native framework's
// status codes, one to one.
type Code int32

const (
	OK                           Code = 0
	Error                        Code = 1
	Unschedulable                Code = 2
	UnschedulableAndUnresolvable Code = 3
	Wait                         Code = 4
	Skip                         Code = 5
	UnknownHook                  Code = 64
	DecodeFailed                 Code = 65
)

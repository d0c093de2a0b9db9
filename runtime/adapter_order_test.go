package runtime

import (
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// keysAdapter is an adapter with a session of three jobs of two tasks in
// two queues (jobs 0 and 1 in queue 0, job 2 in queue 1), whose keys were
// all fetched at the current epoch; no module is needed to follow which
// keys a placement makes stale.
func keysAdapter(d abi.Descriptor) *adapter {
	a := &adapter{mod: &Plugin{descriptor: d}, epoch: 1}
	a.handles = handles{tasks: map[api.TaskID]int32{}, nodes: map[string]int32{"n0": 0}}
	for t := 0; t < 6; t++ {
		a.handles.tasks[api.TaskID(rune('a'+t))] = int32(t)
		a.handles.taskJob = append(a.handles.taskJob, int32(t/2))
		a.taskNode = append(a.taskNode, -1)
	}
	a.handles.jobQueue = []int32{0, 0, 1}
	a.handles.allJobs, a.handles.allQueues = sequence(3), sequence(2)
	a.touched.size(6, 3, 2)
	a.keys.reset()
	for k, n := range map[*keyList]int{&a.keys.jobs: 3, &a.keys.queues: 2} {
		k.reset(n)
		for i := range k.epochs {
			k.epochs[i] = a.epoch
		}
	}
	return a
}

func TestLocalKeysAskOnlyForTouchedObjects(t *testing.T) {
	a := keysAdapter(abi.Descriptor{LocalKeys: true})
	// Task d (job 1, queue 0) is placed.
	a.event(abi.EventAllocate, &api.TaskInfo{UID: "d", NodeName: "n0"})
	if got := a.toAsk(&a.keys.jobs, a.touched.jobs, a.handles.allJobs); len(got) != 1 || got[0] != 1 {
		t.Errorf("jobs asked after a placement in job 1: %v, want [1]", got)
	}
	if got := a.toAsk(&a.keys.queues, a.touched.queues, a.handles.allQueues); len(got) != 1 || got[0] != 0 {
		t.Errorf("queues asked: %v, want [0]", got)
	}
	if !a.stale(&a.keys.jobs, 3, a.touched.jobs, 0, 1) || a.stale(&a.keys.jobs, 3, a.touched.jobs, 0, 2) {
		t.Error("comparing jobs 0 and 1 must refetch (job 1 changed); 0 and 2 must not")
	}
}

func TestKeysWithoutLocalKeysAreAllAskedAfterAnEvent(t *testing.T) {
	a := keysAdapter(abi.Descriptor{})
	a.event(abi.EventAllocate, &api.TaskInfo{UID: "d", NodeName: "n0"})
	if got := a.toAsk(&a.keys.jobs, a.touched.jobs, a.handles.allJobs); len(got) != 3 {
		t.Errorf("jobs asked: %v, want all three", got)
	}
	if !a.stale(&a.keys.jobs, 3, a.touched.jobs, 0, 2) {
		t.Error("an event makes every key stale for a module without local keys")
	}
}

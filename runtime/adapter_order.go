package runtime

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The ordering hooks compare keys: one order_keys call answers every
// comparison among a whole list of jobs, tasks or queues until the next
// event (or for the whole session when the module declares stable keys;
// or, when it declares local keys, until an event touches the object, and
// then only the touched objects are asked again).

var (
	_ framework.JobOrderer         = &adapter{}
	_ framework.TaskOrderer        = &adapter{}
	_ framework.QueueOrderer       = &adapter{}
	_ framework.VictimQueueOrderer = &adapter{}
)

// keyList is the keys of one list of objects and the epoch they were
// fetched at; epoch -1 means never.
type keyList struct {
	keys   []abi.Key
	epochs []int
}

func (k *keyList) reset(n int) {
	k.keys = k.keys[:0]
	k.epochs = k.epochs[:0]
	for i := 0; i < n; i++ {
		k.keys = append(k.keys, nil)
		k.epochs = append(k.epochs, -1)
	}
}

// orderKeys caches the session's order keys.
type orderKeys struct {
	jobs, tasks, queues keyList
	// victimQueues holds victim_queue_order_keys per preemptor queue.
	victimQueues map[int32]*keyList
	// ask is the handle list of the next fetch, reused.
	ask []int32
}

func (o *orderKeys) reset() {
	o.jobs, o.tasks, o.queues = keyList{}, keyList{}, keyList{}
	o.victimQueues = map[int32]*keyList{}
}

// fresh reports whether a key fetched at epoch still holds for an object
// last touched by an event at touched.
func (a *adapter) fresh(epoch, touched int) bool {
	d := &a.mod.descriptor
	return epoch >= 0 && (epoch == a.epoch || d.StableKeys || d.LocalKeys && touched <= epoch)
}

// toAsk returns the handles whose keys must be fetched: all of them, or for
// a module with local keys only those not fresh.
func (a *adapter) toAsk(k *keyList, touched []int, handles []int32) []int32 {
	if !a.mod.descriptor.LocalKeys {
		return handles
	}
	ask := a.keys.ask[:0]
	for _, h := range handles {
		if !a.fresh(k.epochs[h], touched[h]) {
			ask = append(ask, h)
		}
	}
	a.keys.ask = ask
	return ask
}

// fetch asks hook for the keys of the handles and stores them in k.
func (a *adapter) fetch(hook abi.Hook, args any, handles []int32, k *keyList) bool {
	var keys []abi.Key
	if err := a.call(hook, args, &keys); err != nil {
		a.failed(hook, err)
		return false
	}
	if len(keys) != len(handles) {
		a.failed(hook, a.unusable(hook, fmt.Sprintf("%d keys for %d objects", len(keys), len(handles))))
		return false
	}
	for i, h := range handles {
		k.keys[h], k.epochs[h] = keys[i], a.epoch
	}
	return true
}

// compare orders two keys element by element; a missing element is 0.
func compare(l, r abi.Key) int {
	for i := 0; i < len(l) || i < len(r); i++ {
		var x, y float64
		if i < len(l) {
			x = l[i]
		}
		if i < len(r) {
			y = r[i]
		}
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	return 0
}

// stale reports whether the keys of l or r must be fetched, sizing k for a
// list of n objects first.
func (a *adapter) stale(k *keyList, n int, touched []int, l, r int32) bool {
	if len(k.epochs) != n {
		k.reset(n)
	}
	return !a.fresh(k.epochs[l], touched[l]) || !a.fresh(k.epochs[r], touched[r])
}

func (a *adapter) JobOrder(l, r *api.JobInfo) int {
	lh, lok := a.handles.jobs[l.UID]
	rh, rok := a.handles.jobs[r.UID]
	if a.skipped || !lok || !rok {
		return 0
	}
	return a.compareIn(&a.keys.jobs, a.handles.allJobs, a.touched.jobs, lh, rh, abi.HookJobOrderKeys,
		func(ask []int32) any { return abi.JobsArgs{Jobs: ask} })
}

// compareIn compares the keys of l and r in one list of objects (every
// handle of the list in all), first fetching with hook the keys that are
// not fresh; args builds the hook's request for the handles asked.
func (a *adapter) compareIn(k *keyList, all []int32, touched []int, l, r int32, hook abi.Hook, args func(ask []int32) any) int {
	if a.stale(k, len(all), touched, l, r) {
		ask := a.toAsk(k, touched, all)
		if !a.fetch(hook, args(ask), ask, k) {
			return 0
		}
	}
	return compare(k.keys[l], k.keys[r])
}

func (a *adapter) QueueOrder(l, r *api.QueueInfo) int {
	lh, lok := a.handles.queues[l.UID]
	rh, rok := a.handles.queues[r.UID]
	if a.skipped || !lok || !rok {
		return 0
	}
	return a.compareIn(&a.keys.queues, a.handles.allQueues, a.touched.queues, lh, rh, abi.HookQueueOrderKeys,
		func(ask []int32) any { return abi.QueuesArgs{Queue: -1, Queues: ask} })
}

func (a *adapter) VictimQueueOrder(l, r, preemptor *api.QueueInfo) int {
	lh, lok := a.handles.queues[l.UID]
	rh, rok := a.handles.queues[r.UID]
	ph, pok := a.handles.queues[preemptor.UID]
	if a.skipped || !lok || !rok || !pok {
		return 0
	}
	k := a.keys.victimQueues[ph]
	if k == nil {
		k = &keyList{}
		a.keys.victimQueues[ph] = k
	}
	return a.compareIn(k, a.handles.allQueues, a.touched.queues, lh, rh, abi.HookVictimQueueOrderKeys,
		func(ask []int32) any { return abi.QueuesArgs{Queue: ph, Queues: ask} })
}

// TaskOrder fetches the keys of all the tasks of a job at once: tasks are
// compared within their job.
func (a *adapter) TaskOrder(l, r *api.TaskInfo) int {
	lh, lok := a.handles.tasks[l.UID]
	rh, rok := a.handles.tasks[r.UID]
	if a.skipped || !lok || !rok {
		return 0
	}
	k, touched := &a.keys.tasks, a.touched.tasks
	if !a.stale(k, len(a.handles.taskList), touched, lh, rh) {
		return compare(k.keys[lh], k.keys[rh])
	}
	for _, t := range []*api.TaskInfo{l, r} {
		h := a.handles.tasks[t.UID]
		if a.fresh(k.epochs[h], touched[h]) {
			continue
		}
		j, ok := a.handles.jobs[t.Job]
		if !ok {
			return 0
		}
		ask := a.toAsk(k, touched, a.handles.jobTasks[j])
		if !a.fetch(abi.HookTaskOrderKeys, abi.TasksArgs{Tasks: ask}, ask, k) {
			return 0
		}
	}
	return compare(k.keys[lh], k.keys[rh])
}

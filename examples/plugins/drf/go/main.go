// Command drf is the Wasm port of Caldera's native drf plugin (Volcano's
// drf, without hierarchy): Dominant Resource Fairness between jobs. A job's
// share is its largest fraction of any cluster resource its placed tasks
// hold; the job with the smaller share goes first, and may preempt a task
// of a job whose share, without the task, would still be at least its own.
package main

import (
	"math"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&drf{}) }

// shareTolerance is how close two shares must be to count as equal when
// choosing victims, so that float noise does not protect a job.
const shareTolerance = 0.000001

// drf measures shares over the dimensions the cluster's allocatable total
// holds (a dimension below the scheduler's 0.1 tolerance is not measured).
// Resources are vectors over those dimensions, in whole units as the view
// gives them: the scheduler's float sums of whole quantities are exact, so
// integer sums give the same shares.
type drf struct {
	dims  []dimension
	total []int64
	// alloc holds each job's placed resources, len(dims) per job handle;
	// share each job's dominant share, which is also its order key.
	alloc []int64
	share []float64

	// Scratch for Preemptable: each job's remaining allocation, valid for
	// the call whose generation stamp[j] holds.
	remaining []int64
	stamp     []uint32
	gen       uint32
	with      []int64
	victims   []*caldera.Task
}

func (*drf) Name() string { return "drf" }

// OnSessionOpen computes every job's share from what its tasks hold. The
// plugin takes no arguments.
func (d *drf) OnSessionOpen(s *caldera.Session) error {
	v := &s.View
	var total caldera.Resource
	for i := range v.Nodes {
		addTo(&total, &v.Nodes[i].Allocatable)
	}
	d.dims = measured(d.dims[:0], &total)
	n := len(d.dims)
	d.total = resize(d.total, n)
	project(d.total, d.dims, &total)
	d.alloc = resize(d.alloc, n*len(v.Jobs))
	d.share = resize(d.share, len(v.Jobs))
	d.remaining = resize(d.remaining, n*len(v.Jobs))
	d.stamp = resize(d.stamp, len(v.Jobs))
	d.with = resize(d.with, n)
	d.gen = 0
	for i := range v.Tasks {
		t := &v.Tasks[i]
		if allocatedStatus(t.Status) && d.known(s, t.Job) {
			d.charge(t, 1)
		}
	}
	for j := range v.Jobs {
		d.share[j] = d.shareOf(d.jobAlloc(int32(j)))
	}
	return nil
}

func (d *drf) known(s *caldera.Session, job int32) bool {
	return job >= 0 && int(job) < len(s.View.Jobs)
}

func (d *drf) jobAlloc(job int32) []int64 {
	n := len(d.dims)
	return d.alloc[int(job)*n : int(job)*n+n]
}

// charge adds (sign 1) or removes (sign -1) a task's request to its job.
func (d *drf) charge(t *caldera.Task, sign int64) {
	a := d.jobAlloc(t.Job)
	for i := range d.dims {
		a[i] += sign * d.dims[i].of(&t.Request)
	}
}

// shareOf is the largest per-dimension share of used against the total.
func (d *drf) shareOf(used []int64) float64 {
	best := 0.0
	for i, u := range used {
		if s := float64(u) / float64(d.total[i]); s > best {
			best = s
		}
	}
	return best
}

// OrderKeysLocal: a job's key is its dominant share of the cluster's
// resources, fixed for the session, so only events on its tasks change it.
func (*drf) OrderKeysLocal() bool { return true }

// JobOrderKey puts the job with the smaller share first. Shares change as
// tasks are placed, so keys are not declared stable.
func (d *drf) JobOrderKey(_ *caldera.Session, j *caldera.Job) caldera.Key {
	return d.share[j.Handle : j.Handle+1 : j.Handle+1]
}

// Preemptable allows the candidates whose job would not end up with a
// smaller share than the preemptor's job once the preemptor runs. Each
// candidate considered comes off its job's allocation, allowed or not.
func (d *drf) Preemptable(s *caldera.Session, preemptor *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	d.victims = d.victims[:0]
	if !d.known(s, preemptor.Job) {
		return d.victims, true
	}
	copy(d.with, d.jobAlloc(preemptor.Job))
	for i := range d.dims {
		d.with[i] += d.dims[i].of(&preemptor.Request)
	}
	preemptorShare := d.shareOf(d.with)

	d.gen++
	n := len(d.dims)
	for _, t := range candidates {
		if !d.known(s, t.Job) {
			continue
		}
		rest := d.remaining[int(t.Job)*n : int(t.Job)*n+n]
		if d.stamp[t.Job] != d.gen {
			d.stamp[t.Job] = d.gen
			copy(rest, d.jobAlloc(t.Job))
		}
		for i := range d.dims {
			rest[i] -= d.dims[i].of(&t.Request)
		}
		victimShare := d.shareOf(rest)
		if preemptorShare < victimShare || math.Abs(preemptorShare-victimShare) <= shareTolerance {
			d.victims = append(d.victims, t)
		}
	}
	return d.victims, true
}

// OnAllocate charges the task to its job: placed, pipelined, or its
// eviction undone.
func (d *drf) OnAllocate(s *caldera.Session, t *caldera.Task) {
	if d.known(s, t.Job) {
		d.charge(t, 1)
		d.share[t.Job] = d.shareOf(d.jobAlloc(t.Job))
	}
}

// OnDeallocate credits the task back to its job: taken off its node or
// evicted.
func (d *drf) OnDeallocate(s *caldera.Session, t *caldera.Task) {
	if d.known(s, t.Job) {
		d.charge(t, -1)
		d.share[t.Job] = d.shareOf(d.jobAlloc(t.Job))
	}
}

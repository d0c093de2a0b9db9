// Command gang is the Wasm port of Caldera's native gang plugin (Volcano's
// gang): a job runs only when at least minAvailable of its tasks (and
// minTaskMember of each role) can run together, and preemption or reclaim
// never breaks a running gang below that minimum. At session close each
// job's PodGroup gets a Scheduled or Unschedulable condition.
package main

import (
	"strconv"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&gang{}) }

// PodGroup condition reasons, as Volcano words them.
const (
	notEnoughPodsOfTask = "NotEnoughPodsOfTask"
	notEnoughTasks      = "NotEnoughTasks"
)

// gang keeps, per session, how each task was last placed and whether that
// placement was undone, indexed by task handle; and scratch space for the
// victim hooks, indexed by job handle, reused from call to call.
type gang struct {
	// placed is the status each task was last placed with this session
	// ("" if never), and discarded whether that placement was then undone;
	// together they tell which pending tasks a discarded statement had
	// allocated.
	placed    []string
	discarded []bool

	// stamp[j] == gen marks ready[j] as counted in the current victims call.
	stamp   []uint32
	ready   []int32
	gen     uint32
	victims []*caldera.Task
	key     []float64
}

func (*gang) Name() string { return "gang" }

// OnSessionOpen sizes the per-session state; the plugin has no arguments.
func (g *gang) OnSessionOpen(s *caldera.Session) error {
	v := &s.View
	g.placed = resize(g.placed, len(v.Tasks))
	g.discarded = resize(g.discarded, len(v.Tasks))
	g.stamp = resize(g.stamp, len(v.Jobs))
	g.ready = resize(g.ready, len(v.Jobs))
	g.key = resize(g.key, len(v.Jobs))
	g.gen = 0
	return nil
}

// JobValid rejects jobs that can no longer reach their minimums.
func (*gang) JobValid(_ *caldera.Session, j *caldera.Job) *caldera.ValidateResult {
	if !rolesMeet(j, roleValid) {
		return &caldera.ValidateResult{Reason: notEnoughPodsOfTask, Message: "Not enough valid pods of each task for gang-scheduling"}
	}
	if valid := countTasks(j).valid; valid < j.MinAvailable {
		return &caldera.ValidateResult{Reason: notEnoughTasks, Message: "Not enough valid tasks for gang-scheduling, valid: " +
			strconv.Itoa(int(valid)) + ", min: " + strconv.Itoa(int(j.MinAvailable))}
	}
	return nil
}

// JobReady: every role and the job as a whole have their minimum placed.
func (*gang) JobReady(_ *caldera.Session, j *caldera.Job) bool {
	return rolesMeet(j, roleReady) && isReady(j)
}

// JobPipelined permits a job whose minimums are placed or promised.
func (*gang) JobPipelined(_ *caldera.Session, j *caldera.Job) caldera.Vote {
	c := countTasks(j)
	if rolesMeet(j, rolePipelined) && c.waiting+c.ready+c.pendingBestEffort >= j.MinAvailable {
		return caldera.VotePermit
	}
	return caldera.VoteReject
}

// JobStarving: fewer tasks placed or promised than minAvailable.
func (*gang) JobStarving(_ *caldera.Session, j *caldera.Job) bool {
	c := countTasks(j)
	return c.waiting+c.ready < j.MinAvailable
}

// OrderKeysLocal: a job's key is its readiness, which only events on its
// own tasks change.
func (*gang) OrderKeysLocal() bool { return true }

// JobOrderKey puts jobs that are not ready (0) before ready ones (1). The
// key changes as tasks are placed, so keys are not declared stable.
func (g *gang) JobOrderKey(_ *caldera.Session, j *caldera.Job) caldera.Key {
	k := g.key[j.Handle : j.Handle+1 : j.Handle+1]
	k[0] = 0
	if isReady(j) {
		k[0] = 1
	}
	return k
}

// Preemptable keeps, job by job and in the given order, the candidates that
// leave their job with at least minAvailable ready tasks.
func (g *gang) Preemptable(s *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return g.aboveMinimum(s, candidates), true
}

// Reclaimable follows the same rule as Preemptable.
func (g *gang) Reclaimable(s *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return g.aboveMinimum(s, candidates), true
}

// Evictable allows every gang eviction candidate: gangpreempt and
// gangreclaim keep minAvailable themselves, by bundles.
func (*gang) Evictable(_ *caldera.Session, _ caldera.EvictionContext, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return candidates, true
}

func (g *gang) aboveMinimum(s *caldera.Session, candidates []*caldera.Task) []*caldera.Task {
	g.gen++
	g.victims = g.victims[:0]
	for _, t := range candidates {
		if t.Job < 0 || int(t.Job) >= len(s.View.Jobs) {
			continue
		}
		j := s.Job(t.Job)
		if g.stamp[t.Job] != g.gen {
			g.stamp[t.Job], g.ready[t.Job] = g.gen, readyTaskNum(j)
		}
		if g.ready[t.Job] > j.MinAvailable {
			g.ready[t.Job]--
			g.victims = append(g.victims, t)
		}
	}
	return g.victims
}

// OnAllocate remembers how a task was placed.
func (g *gang) OnAllocate(_ *caldera.Session, t *caldera.Task) {
	g.placed[t.Handle] = t.Status
	g.discarded[t.Handle] = false
}

// OnDeallocate notes a placement undone. An eviction also calls it, with
// the task releasing rather than pending; the task then no longer counts
// as pending anyway.
func (g *gang) OnDeallocate(_ *caldera.Session, t *caldera.Task) {
	if t.Status == caldera.Pending {
		g.discarded[t.Handle] = true
	}
}

// resize returns s with length n and every element zero, reusing its array
// when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Command priority is the Wasm port of Caldera's native priority plugin
// (Volcano's priority): higher-priority jobs and tasks go first, a task may
// preempt tasks of lower-priority jobs (or lower-priority tasks of its own
// job), and a job starves while some of its tasks hold no resources.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&priority{}) }

// priority keeps each job's and each task's key, made at session open: a
// key built per call would be a heap allocation per object under TinyGo,
// and enough of them make its collector mark the whole view.
type priority struct {
	jobKeys, taskKeys []float64
}

func (*priority) Name() string { return "priority" }

// OnSessionOpen makes the keys: the lower key goes first, so a higher
// priority is a lower key.
func (p *priority) OnSessionOpen(s *caldera.Session) error {
	v := &s.View
	p.jobKeys = keys(p.jobKeys, len(v.Jobs), func(i int) int32 { return v.Jobs[i].Priority })
	p.taskKeys = keys(p.taskKeys, len(v.Tasks), func(i int) int32 { return v.Tasks[i].Priority })
	return nil
}

// keys fills buf, reused, with the negated priority of n objects.
func keys(buf []float64, n int, priority func(int) int32) []float64 {
	buf = buf[:0]
	for i := range n {
		buf = append(buf, -float64(priority(i)))
	}
	return buf
}

// Priorities do not change within a session: the scheduler asks for each
// key once.
func (*priority) OrderKeysStable() bool { return true }

func (p *priority) JobOrderKey(_ *caldera.Session, j *caldera.Job) caldera.Key {
	return p.jobKeys[j.Handle : j.Handle+1 : j.Handle+1]
}

func (p *priority) TaskOrderKey(_ *caldera.Session, t *caldera.Task) caldera.Key {
	return p.taskKeys[t.Handle : t.Handle+1 : t.Handle+1]
}

// Preemptable allows lower-priority tasks of the preemptor's own job and
// every task of a lower-priority job.
func (*priority) Preemptable(s *caldera.Session, preemptor *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	pj := s.Job(preemptor.Job)
	var victims []*caldera.Task
	for _, t := range candidates {
		if t.Job == preemptor.Job {
			if t.Priority < preemptor.Priority {
				victims = append(victims, t)
			}
			continue
		}
		if s.Job(t.Job).Priority < pj.Priority {
			victims = append(victims, t)
		}
	}
	return victims, true
}

// JobStarving: some task neither holds resources nor waits for them.
func (*priority) JobStarving(_ *caldera.Session, j *caldera.Job) bool {
	held := 0
	for _, t := range j.Tasks {
		switch t.Status {
		case caldera.Bound, caldera.Binding, caldera.Running, caldera.Allocated, caldera.Succeeded, caldera.Pipelined:
			held++
		}
	}
	return held < len(j.Tasks)
}

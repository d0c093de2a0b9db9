// Command priority is the Wasm port of Caldera's native priority plugin
// (Volcano's priority): higher-priority jobs and tasks go first, a task may
// preempt tasks of lower-priority jobs (or lower-priority tasks of its own
// job), and a job starves while some of its tasks hold no resources.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&priority{}) }

// priority keeps each job's and each task's key, made at session open, and
// its victims list: a key or list built per call would be a heap
// allocation under TinyGo, and enough of them make its collector mark the
// whole view.
type priority struct {
	jobKeys, taskKeys []float64
	victims           []*caldera.Task
}

func (*priority) Name() string { return "priority" }

// OnSessionOpen makes the keys: the lower key goes first, so a higher
// priority is a lower key.
func (p *priority) OnSessionOpen(s *caldera.Session) error {
	v := &s.View
	p.jobKeys = p.jobKeys[:0]
	for i := range v.Jobs {
		p.jobKeys = append(p.jobKeys, -float64(v.Jobs[i].Priority))
	}
	p.taskKeys = p.taskKeys[:0]
	for i := range v.Tasks {
		p.taskKeys = append(p.taskKeys, -float64(v.Tasks[i].Priority))
	}
	return nil
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
func (p *priority) Preemptable(s *caldera.Session, preemptor *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	pj := s.Job(preemptor.Job)
	p.victims = p.victims[:0]
	for _, t := range candidates {
		if t.Job == preemptor.Job {
			if t.Priority < preemptor.Priority {
				p.victims = append(p.victims, t)
			}
			continue
		}
		if s.Job(t.Job).Priority < pj.Priority {
			p.victims = append(p.victims, t)
		}
	}
	return p.victims, true
}

// Evictable lets gangpreempt take the candidates whose job has a lower
// priority than the starving job; gangreclaim may take any.
func (p *priority) Evictable(s *caldera.Session, ctx caldera.EvictionContext, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	if ctx.Kind == caldera.EvictGangReclaim {
		return candidates, true
	}
	p.victims = p.victims[:0]
	for _, t := range candidates {
		if s.Job(t.Job).Priority < ctx.Job.Priority {
			p.victims = append(p.victims, t)
		}
	}
	return p.victims, true
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

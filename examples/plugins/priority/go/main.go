// Command priority is the Wasm port of Caldera's native priority plugin
// (Volcano's priority): higher-priority jobs and tasks go first, a task may
// preempt tasks of lower-priority jobs (or lower-priority tasks of its own
// job), and a job starves while some of its tasks hold no resources.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(priority{}) }

type priority struct{}

func (priority) Name() string { return "priority" }

// Priorities do not change within a session: the scheduler asks for each
// key once.
func (priority) OrderKeysStable() bool { return true }

// The lower key goes first, so a higher priority is a lower key.
func (priority) JobOrderKey(_ *caldera.Session, j *caldera.Job) caldera.Key {
	return caldera.Key{-float64(j.Priority)}
}

func (priority) TaskOrderKey(_ *caldera.Session, t *caldera.Task) caldera.Key {
	return caldera.Key{-float64(t.Priority)}
}

// Preemptable allows lower-priority tasks of the preemptor's own job and
// every task of a lower-priority job.
func (priority) Preemptable(s *caldera.Session, preemptor *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
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
func (priority) JobStarving(_ *caldera.Session, j *caldera.Job) bool {
	held := 0
	for _, t := range j.Tasks {
		switch t.Status {
		case caldera.Bound, caldera.Binding, caldera.Running, caldera.Allocated, caldera.Succeeded, caldera.Pipelined:
			held++
		}
	}
	return held < len(j.Tasks)
}

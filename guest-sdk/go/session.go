package caldera

import "fmt"

// Session is the view of one scheduling session and the policy's
// arguments from the scheduler configuration.
type Session struct {
	View      View
	Arguments map[string]any
}

// Node returns the node with this handle.
func (s *Session) Node(h int32) *Node { return &s.View.Nodes[h] }

// Task returns the task with this handle.
func (s *Session) Task(h int32) *Task { return &s.View.Tasks[h] }

// Job returns the job with this handle.
func (s *Session) Job(h int32) *Job { return &s.View.Jobs[h] }

// Queue returns the queue with this handle.
func (s *Session) Queue(h int32) *Queue { return &s.View.Queues[h] }

// Int reads an integer argument, or def when it is absent. A value of
// another type is an error naming the key.
func (s *Session) Int(key string, def int64) (int64, error) {
	v, ok := s.Arguments[key]
	if !ok {
		return def, nil
	}
	switch n := v.(type) {
	case int64:
		return n, nil
	case uint64:
		return int64(n), nil
	case float64:
		if n == float64(int64(n)) {
			return int64(n), nil
		}
	}
	return def, fmt.Errorf("argument %s: expected an integer, got %v", key, v)
}

// Event kinds the scheduler forwards; see apply.
const (
	eventAllocate   = 1
	eventPipeline   = 2
	eventDeallocate = 3
	eventEvict      = 4
	eventUnevict    = 5
)

// apply brings the view up to date with one placement change, accounting
// resources the way the scheduler's nodes do.
func (s *Session) apply(kind, task, node int32) error {
	if task < 0 || int(task) >= len(s.View.Tasks) {
		return fmt.Errorf("event %d names task %d of %d", kind, task, len(s.View.Tasks))
	}
	t := &s.View.Tasks[task]
	if kind != eventDeallocate && (node < 0 || int(node) >= len(s.View.Nodes)) {
		return fmt.Errorf("event %d names node %d of %d", kind, node, len(s.View.Nodes))
	}
	switch kind {
	case eventAllocate:
		n := &s.View.Nodes[node]
		sub(&n.Idle, &t.Request)
		add(&n.Used, &t.Request)
		n.Pods++
		t.Status, t.Node = Allocated, node
	case eventPipeline:
		n := &s.View.Nodes[node]
		add(&n.Pipelined, &t.Request)
		t.Status, t.Node = Pipelined, node
	case eventEvict:
		n := &s.View.Nodes[node]
		add(&n.Releasing, &t.Request)
		t.Status = Releasing
	case eventUnevict:
		n := &s.View.Nodes[node]
		sub(&n.Releasing, &t.Request)
		t.Status = Running
	case eventDeallocate:
		if t.Node >= 0 && int(t.Node) < len(s.View.Nodes) {
			n := &s.View.Nodes[t.Node]
			switch t.Status {
			case Pipelined:
				sub(&n.Pipelined, &t.Request)
			case Allocated, Binding, Bound, Running:
				add(&n.Idle, &t.Request)
				sub(&n.Used, &t.Request)
				n.Pods--
			}
		}
		t.Status, t.Node = Pending, -1
	default:
		// An event of a newer minor version: nothing to apply.
	}
	return nil
}

func add(r, d *Resource) {
	r.MilliCPU += d.MilliCPU
	r.Memory += d.Memory
	for k, v := range d.Scalars {
		if r.Scalars == nil {
			r.Scalars = map[string]int64{}
		}
		r.Scalars[k] += v
	}
}

func sub(r, d *Resource) {
	r.MilliCPU -= d.MilliCPU
	r.Memory -= d.Memory
	for k, v := range d.Scalars {
		if r.Scalars == nil {
			r.Scalars = map[string]int64{}
		}
		r.Scalars[k] -= v
	}
}

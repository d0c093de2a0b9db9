package caldera

// resetArgs empties h.args for the next request: no handle (-1), no lists.
func (h *host) resetArgs() {
	a := &h.args
	a.Task, a.Job, a.Queue, a.Trial, a.Kind, a.HyperNode = -1, -1, -1, false, 0, ""
	a.Nodes, a.Tasks, a.Jobs, a.Queues, a.Scores = a.Nodes[:0], a.Tasks[:0], a.Jobs[:0], a.Queues[:0], a.Scores[:0]
}

func (h *host) task(i int32) (*Task, error) {
	v := &h.session.View
	if i < 0 || int(i) >= len(v.Tasks) {
		return nil, handleError("task", i, len(v.Tasks))
	}
	return &v.Tasks[i], nil
}

func (h *host) job(i int32) (*Job, error) {
	v := &h.session.View
	if i < 0 || int(i) >= len(v.Jobs) {
		return nil, handleError("job", i, len(v.Jobs))
	}
	return &v.Jobs[i], nil
}

func (h *host) queue(i int32) (*Queue, error) {
	v := &h.session.View
	if i < 0 || int(i) >= len(v.Queues) {
		return nil, handleError("queue", i, len(v.Queues))
	}
	return &v.Queues[i], nil
}

// taskList, jobList and queueList turn handles into pointers; the slices
// they return are reused by the next call.
func (h *host) taskList(hs []int32) ([]*Task, error) {
	h.tasks = h.tasks[:0]
	for _, i := range hs {
		t, err := h.task(i)
		if err != nil {
			return nil, err
		}
		h.tasks = append(h.tasks, t)
	}
	return h.tasks, nil
}

func (h *host) jobList(hs []int32) ([]*Job, error) {
	h.jobs = h.jobs[:0]
	for _, i := range hs {
		j, err := h.job(i)
		if err != nil {
			return nil, err
		}
		h.jobs = append(h.jobs, j)
	}
	return h.jobs, nil
}

func (h *host) queueList(hs []int32) ([]*Queue, error) {
	h.queues = h.queues[:0]
	for _, i := range hs {
		q, err := h.queue(i)
		if err != nil {
			return nil, err
		}
		h.queues = append(h.queues, q)
	}
	return h.queues, nil
}

// taskOnNodes reads the task and node handles of the batched task-on-nodes
// hooks.
func (h *host) taskOnNodes() (*Task, []*Node, error) {
	t, err := h.task(h.args.Task)
	if err != nil {
		return nil, nil, err
	}
	v := &h.session.View
	h.nodes = h.nodes[:0]
	for _, n := range h.args.Nodes {
		if n < 0 || int(n) >= len(v.Nodes) {
			return nil, nil, handleError("node", n, len(v.Nodes))
		}
		h.nodes = append(h.nodes, &v.Nodes[n])
	}
	return t, h.nodes, nil
}

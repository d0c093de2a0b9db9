package caldera

// resetArgs empties h.args for the next request: no handle (-1), no lists.
func (h *host) resetArgs() {
	a := &h.args
	a.Task, a.Job, a.Queue, a.Trial, a.Kind, a.HyperNode = -1, -1, -1, false, 0, ""
	a.JobHyperNode, a.Allocated, a.Within, a.Scope, a.Purpose = -1, -1, -1, 0, 0
	a.Nodes, a.Tasks, a.Jobs, a.Queues, a.Scores = a.Nodes[:0], a.Tasks[:0], a.Jobs[:0], a.Queues[:0], a.Scores[:0]
	a.HyperNodes = a.HyperNodes[:0]
	a.Claims = a.Claims[:0]
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

// hyperNode returns the hypernode of a handle; -1 is none (nil).
func (h *host) hyperNode(i int32) (*HyperNode, error) {
	v := &h.session.View
	if i == -1 {
		return nil, nil
	}
	if i < 0 || int(i) >= len(v.HyperNodes) {
		return nil, handleError("hypernode", i, len(v.HyperNodes))
	}
	return &v.HyperNodes[i], nil
}

// hyperNodeList turns hypernode handles into pointers; the slice is
// reused by the next call.
func (h *host) hyperNodeList(hs []int32) ([]*HyperNode, error) {
	h.hyperNodes = h.hyperNodes[:0]
	for _, i := range hs {
		if i < 0 || int(i) >= len(h.session.View.HyperNodes) {
			return nil, handleError("hypernode", i, len(h.session.View.HyperNodes))
		}
		h.hyperNodes = append(h.hyperNodes, &h.session.View.HyperNodes[i])
	}
	return h.hyperNodes, nil
}

// search reads the hypernode hooks' job, allocated hypernode and, for a
// gradient, the hypernode searched within and the search.
func (h *host) search() (HyperNodeSearch, error) {
	var s HyperNodeSearch
	var err error
	if s.Job, err = h.job(h.args.Job); err != nil {
		return s, err
	}
	if s.Allocated, err = h.hyperNode(h.args.Allocated); err != nil {
		return s, err
	}
	if s.Within, err = h.hyperNode(h.args.Within); err != nil {
		return s, err
	}
	s.Scope, s.Purpose = GradientScope(h.args.Scope), SearchPurpose(h.args.Purpose)
	return s, nil
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

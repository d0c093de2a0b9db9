package caldera

// Events change the view during a session: node usage, task status and
// node, job phase. Those changes are the session's own tentative
// placements, not the cluster's; the next session's view says what
// became of them. So the SDK records each object's fields as they were
// before the first event touched them, and puts them back when the
// session closes (ABI 1.3, the descriptor's undoEvents). The host can then
// leave those objects out of the delta unless they changed in the cluster:
// on a cluster that changed little, a session opens without decoding
// anything.

// undoLog holds what events changed since the view arrived.
type undoLog struct {
	nodes []nodeUsage
	tasks []taskPlace
	jobs  []jobPhase
	// saved[list][handle] says the object is already recorded.
	savedNodes, savedTasks, savedJobs []bool
	// scalars backs the recorded resources' scalars, so that recording
	// allocates nothing once it has grown to a session's size.
	scalars []Scalar
}

type nodeUsage struct {
	handle                           int32
	idle, used, releasing, pipelined Resource
	pods                             int32
}

type taskPlace struct {
	handle, node int32
	status       string
}

type jobPhase struct {
	handle int32
	phase  string
}

// reset starts a log for a view with these list lengths.
func (u *undoLog) reset(v *View) {
	u.nodes, u.tasks, u.jobs, u.scalars = u.nodes[:0], u.tasks[:0], u.jobs[:0], u.scalars[:0]
	u.savedNodes = resize(u.savedNodes, len(v.Nodes))
	u.savedTasks = resize(u.savedTasks, len(v.Tasks))
	u.savedJobs = resize(u.savedJobs, len(v.Jobs))
}

// node records node h's usage before an event changes it.
func (u *undoLog) node(v *View, h int32) {
	if u == nil || !first(u.savedNodes, h) {
		return
	}
	n := &v.Nodes[h]
	u.nodes = append(u.nodes, nodeUsage{h, u.keep(n.Idle), u.keep(n.Used), u.keep(n.Releasing), u.keep(n.Pipelined), n.Pods})
}

// keep copies a resource, its scalars into the log's own backing array:
// events change scalars in place.
func (u *undoLog) keep(r Resource) Resource {
	if r.Scalars == nil {
		return r
	}
	start := len(u.scalars)
	u.scalars = append(u.scalars, r.Scalars...)
	r.Scalars = u.scalars[start:len(u.scalars):len(u.scalars)]
	return r
}

func (u *undoLog) task(v *View, h int32) {
	if u == nil || !first(u.savedTasks, h) {
		return
	}
	t := &v.Tasks[h]
	u.tasks = append(u.tasks, taskPlace{h, t.Node, t.Status})
}

func (u *undoLog) job(v *View, h int32) {
	if u == nil || !first(u.savedJobs, h) {
		return
	}
	u.jobs = append(u.jobs, jobPhase{h, v.Jobs[h].Phase})
}

// first reports whether h is recorded for the first time, and marks it.
func first(saved []bool, h int32) bool {
	if saved[h] {
		return false
	}
	saved[h] = true
	return true
}

// restore puts every recorded field back, leaving the view as it arrived.
func (u *undoLog) restore(v *View) {
	for _, s := range u.nodes {
		n := &v.Nodes[s.handle]
		restoreResource(&n.Idle, s.idle)
		restoreResource(&n.Used, s.used)
		restoreResource(&n.Releasing, s.releasing)
		restoreResource(&n.Pipelined, s.pipelined)
		n.Pods = s.pods
	}
	for _, s := range u.tasks {
		t := &v.Tasks[s.handle]
		t.Node, t.Status = s.node, s.status
	}
	for _, s := range u.jobs {
		v.Jobs[s.handle].Phase = s.phase
	}
}

// restoreResource copies saved into r, reusing r's scalars' array (the
// log's array is reused by the next session, whose open resets the log).
// Scalars that arrived nil come back empty with their array kept: the next
// session's first placement on the node would otherwise allocate it again,
// once per node per session, and under TinyGo enough allocations make the
// collector mark the whole view. Nil and empty read the same.
func restoreResource(r *Resource, saved Resource) {
	r.MilliCPU, r.Memory = saved.MilliCPU, saved.Memory
	r.Scalars = append(r.Scalars[:0], saved.Scalars...)
}

package gangevict

import (
	"math"
	"sort"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// kind says whether evicting a bundle leaves its job running (safe) or
// breaks its gang, costing the whole job (whole). Safe bundles sort first.
type kind int

const (
	safe kind = iota
	whole
)

// bundle is a victim job's candidate tasks of one kind on one domain.
type bundle struct {
	kind  kind
	job   *api.JobInfo
	tasks []*api.TaskInfo
	// local is what the bundle's tasks free; global what the job loses
	// (its every task for a whole bundle, nothing for a safe one).
	local, global *api.Resource
}

// bundlesOf splits a victim job's candidates, lowest task priority first
// (then by UID), into the ones its gang can spare and the rest. A task is
// spared while the job keeps minAvailable ready tasks and, when its
// per-role minimums bind (minAvailable at least their sum), its role keeps
// its minimum, and, in a job with sub-group policies, its sub-job is
// already short of a task or its policy keeps minSubGroups ready sub-jobs
// without it (a sub-job losing a task stops counting as ready). A job
// already below minAvailable spares everything. Volcano's CreateJobBundles.
func bundlesOf(job *api.JobInfo, tasks []*api.TaskInfo) []*bundle {
	if len(tasks) == 0 {
		return nil
	}
	sort.Slice(tasks, func(i, j int) bool {
		if tasks[i].Priority != tasks[j].Priority {
			return tasks[i].Priority < tasks[j].Priority
		}
		return tasks[i].UID < tasks[j].UID
	})
	spare := job.ReadyTaskNum() - job.MinAvailable
	if spare < 0 {
		return []*bundle{{kind: safe, job: job, tasks: tasks, local: sum(tasks), global: api.EmptyResource()}}
	}
	roleSpare := rolesToSpare(job)
	groups := subJobsToSpare(job)
	var spared, rest []*api.TaskInfo
	for _, t := range tasks {
		left, bound := roleSpare[t.TaskRole]
		if spare > 0 && (!bound || left > 0) && groups.spares(job, t) {
			spared = append(spared, t)
			spare--
			if bound {
				roleSpare[t.TaskRole]--
			}
			groups.take(job, t)
			continue
		}
		rest = append(rest, t)
	}
	var out []*bundle
	if len(spared) > 0 {
		out = append(out, &bundle{kind: safe, job: job, tasks: spared, local: sum(spared), global: api.EmptyResource()})
	}
	if len(rest) > 0 {
		all := api.EmptyResource()
		for _, t := range job.Tasks {
			all.Add(t.Resreq)
		}
		out = append(out, &bundle{kind: whole, job: job, tasks: rest, local: sum(rest), global: all})
	}
	return out
}

// rolesToSpare returns, for each role with a minimum that binds, how many
// of its ready tasks exceed it. A task counts as ready as the gang plugin
// counts it: allocated, succeeded, or pending without requests.
func rolesToSpare(job *api.JobInfo) map[string]int32 {
	out := map[string]int32{}
	if job.MinAvailable < job.TaskMinAvailableTotal {
		return out
	}
	ready := map[string]int32{}
	for status, tasks := range job.TaskStatusIndex {
		for _, t := range tasks {
			if api.AllocatedStatus(status) || status == api.Succeeded || (status == api.Pending && t.InitResreq.IsEmpty()) {
				ready[t.TaskRole]++
			}
		}
	}
	for role, min := range job.TaskMinAvailable {
		out[role] = ready[role] - min
	}
	return out
}

// subJobSpare follows, for a job with sub-group policies, how many ready
// sub-jobs each policy has beyond its minSubGroups, and which sub-jobs
// already lack a task (evicting more of them costs nothing more).
type subJobSpare struct {
	spare  map[api.SubJobGID]int32
	broken map[api.SubJobID]bool
}

func subJobsToSpare(job *api.JobInfo) *subJobSpare {
	if len(job.MinSubJobs) == 0 {
		return nil
	}
	s := &subJobSpare{spare: map[api.SubJobGID]int32{}, broken: map[api.SubJobID]bool{}}
	for _, sj := range job.SubJobs {
		if sj.IsReady() {
			s.spare[sj.GID]++
		} else {
			s.broken[sj.UID] = true
		}
	}
	for gid, min := range job.MinSubJobs {
		s.spare[gid] -= min
	}
	return s
}

// spares reports whether the task's eviction keeps its policy at
// minSubGroups ready sub-jobs.
func (s *subJobSpare) spares(job *api.JobInfo, t *api.TaskInfo) bool {
	if s == nil {
		return true
	}
	sj := job.SubJobOf(t.UID)
	return sj != nil && (s.broken[sj.UID] || s.spare[sj.GID] > 0)
}

// take counts the task's eviction: the first of its sub-job costs the
// policy one ready sub-job.
func (s *subJobSpare) take(job *api.JobInfo, t *api.TaskInfo) {
	if s == nil {
		return
	}
	if sj := job.SubJobOf(t.UID); sj != nil && !s.broken[sj.UID] {
		s.broken[sj.UID] = true
		s.spare[sj.GID]--
	}
}

func sum(tasks []*api.TaskInfo) *api.Resource {
	r := api.EmptyResource()
	for _, t := range tasks {
		r.Add(t.Resreq)
	}
	return r
}

// allowedOnly keeps the bundles' tasks the plugins let go: a safe bundle
// shrinks to them, a whole bundle stays only if every task may go.
func allowedOnly(bundles []*bundle, allowed []*api.TaskInfo) []*bundle {
	ok := make(map[api.TaskID]bool, len(allowed))
	for _, t := range allowed {
		ok[t.UID] = true
	}
	var out []*bundle
	for _, b := range bundles {
		var kept []*api.TaskInfo
		for _, t := range b.tasks {
			if ok[t.UID] {
				kept = append(kept, t)
			}
		}
		switch {
		case b.kind == whole && len(kept) == len(b.tasks):
			out = append(out, b)
		case b.kind == safe && len(kept) > 0:
			out = append(out, &bundle{kind: safe, job: b.job, tasks: kept, local: sum(kept), global: b.global})
		}
	}
	return out
}

// sortBundles orders bundles as Volcano's SortBundlesForPreempt and
// SortBundlesForReclaim: safe before whole, then by the victims' order
// (before says which of two jobs gives up its tasks first; ties fall
// through), then by what a bundle frees towards the need for what it
// costs, then by job UID, first task UID and size.
func sortBundles(bundles []*bundle, need *api.Resource, before func(l, r *api.JobInfo) bool) {
	sort.SliceStable(bundles, func(i, j int) bool {
		l, r := bundles[i], bundles[j]
		if l.kind != r.kind {
			return l.kind < r.kind
		}
		if l.job.UID != r.job.UID {
			if lr, rl := before(l.job, r.job), before(r.job, l.job); lr != rl {
				return lr
			}
		}
		if lv, rv := value(l, need), value(r, need); lv != rv {
			return lv > rv
		}
		if l.job.UID != r.job.UID {
			return l.job.UID < r.job.UID
		}
		if l.tasks[0].UID != r.tasks[0].UID {
			return l.tasks[0].UID < r.tasks[0].UID
		}
		return len(l.tasks) < len(r.tasks)
	})
}

// value is what a bundle frees towards the need (each dimension capped at
// the need, summed as shares of it) over what it costs its job measured
// the same way; a bundle that costs nothing is worth the most.
func value(b *bundle, need *api.Resource) float64 {
	cost := shareOf(b.global, need, false)
	if cost == 0 {
		return math.Inf(1)
	}
	return shareOf(b.local, need, true) / cost
}

func shareOf(res, need *api.Resource, capAtNeed bool) float64 {
	total := 0.0
	for _, name := range need.ResourceNames() {
		n := need.Get(name)
		if n <= 0 {
			continue
		}
		v := res.Get(name)
		if capAtNeed && v > n {
			v = n
		}
		total += v / n
	}
	return total
}

package allocate

import (
	"sort"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// trial is a job placed within one hypernode and undone again: what it
// would decide, the tasks it would leave, and the hypernode's score.
type trial struct {
	hyperNode *api.HyperNodeInfo
	plan      framework.Plan
	left      *pqueue.Queue[*api.TaskInfo]
	score     float64
}

// search is one job's turn in allocate's hypernode search. failed holds
// the hypernodes where the job did not fit: every trial starts from the
// same state, so it would not fit there again this turn.
type search struct {
	r      *run
	queue  *api.QueueInfo
	job    *api.JobInfo
	tasks  *pqueue.Queue[*api.TaskInfo]
	failed map[string]bool
}

// allocateInTopology places a job with a network topology, with Volcano
// v1.15's outcome (allocateForJob over the job's one sub-job): the job's
// gradients are taken in turn; within a gradient every hypernode is
// searched in turn for the job's tasks (its own gradients, lowest first,
// the best scored hypernode where they fit), and the hypernode whose
// search scored best is kept. Where Volcano picks at random among equal
// scores, the first in name order wins.
//
// Volcano places the job on trial in every candidate and scores the ones
// where it fit. The scores do not depend on the trials (they are taken
// once every trial is undone), so here candidates are tried best scored
// first and the first that holds the job ends the search: the outcome is
// the same for a fraction of the trials.
//
// It reports whether the job's decisions were committed.
func (r *run) allocateInTopology(queue *api.QueueInfo, job *api.JobInfo, w *worklist) bool {
	ssn := r.ssn
	s := &search{r: r, queue: queue, job: job, tasks: w.tasks[job.UID], failed: map[string]bool{}}
	for _, gradient := range ssn.HyperNodeGradientFn(job, nil, ssn.HyperNodes.Top(), framework.ScopeJob, framework.PurposeAllocate) {
		best := s.bestOf(gradient)
		if best == nil {
			continue
		}
		stmt := r.replayed(best.plan, "job", job.UID, "hyperNode", best.hyperNode.Name)
		if stmt == nil {
			return false
		}
		w.tasks[job.UID] = best.left
		if !r.commitIfReady(job, stmt) {
			return false
		}
		job.AllocatedHyperNode = ssn.HyperNodes.LCA(job.AllocatedHyperNode, best.hyperNode.Name)
		return true
	}
	return false
}

// bestOf searches within each hypernode of one of the job's gradients and
// returns the best scored trial. A hypernode within which only itself is
// left to try scores as it stands (alone, as its own search would score
// it), so those are tried best first and the first that holds the job
// ends the search; the others are searched in full.
func (s *search) bestOf(gradient []*api.HyperNodeInfo) *trial {
	var best *trial
	var alone []*api.HyperNodeInfo
	for _, hn := range gradient {
		within := s.candidates(hn)
		switch {
		case len(within) == 0:
		case len(within) == 1 && len(within[0]) == 1 && within[0][0] == hn:
			alone = append(alone, hn)
		default:
			if t := s.bestWithin(within); t != nil && (best == nil || t.score > best.score) {
				best = t
			}
		}
	}
	scores := make(map[string]float64, len(alone))
	for _, hn := range alone {
		scores[hn.Name] = s.score([]*api.HyperNodeInfo{hn})[hn.Name]
	}
	sort.SliceStable(alone, func(a, b int) bool { return scores[alone[a].Name] > scores[alone[b].Name] })
	for _, hn := range alone {
		if best != nil && best.score >= scores[hn.Name] {
			break
		}
		if t := s.try(hn); t != nil {
			t.score = scores[hn.Name]
			return t
		}
	}
	return best
}

// candidates is the gradients within hn for the job's pending tasks, less
// the hypernodes already failed.
func (s *search) candidates(hn *api.HyperNodeInfo) [][]*api.HyperNodeInfo {
	var out [][]*api.HyperNodeInfo
	for _, g := range s.r.ssn.HyperNodeGradientFn(s.job, nil, hn, framework.ScopeTasks, framework.PurposeAllocate) {
		var left []*api.HyperNodeInfo
		for _, c := range g {
			if !s.failed[c.Name] {
				left = append(left, c)
			}
		}
		if len(left) > 0 {
			out = append(out, left)
		}
	}
	return out
}

// bestWithin returns the best scored hypernode of the first gradient
// where the job's tasks fit (Volcano's allocateForSubJob): candidates are
// scored together and tried best first. When every candidate of the top
// score fails, the next group of equal scores is scored again by itself,
// as Volcano, scoring only the candidates that fit, would score it.
func (s *search) bestWithin(gradients [][]*api.HyperNodeInfo) *trial {
	for _, cands := range gradients {
		scores := s.score(cands)
		order := append([]*api.HyperNodeInfo(nil), cands...)
		sort.SliceStable(order, func(a, b int) bool { return scores[order[a].Name] > scores[order[b].Name] })
		for i := 0; i < len(order); {
			j := i + 1
			for j < len(order) && scores[order[j].Name] == scores[order[i].Name] {
				j++
			}
			group := order[i:j]
			if i > 0 && len(group) > 1 {
				regrouped := s.score(group)
				sort.SliceStable(group, func(a, b int) bool { return regrouped[group[a].Name] > regrouped[group[b].Name] })
				for name, v := range regrouped {
					scores[name] = v
				}
			}
			for _, hn := range group {
				if t := s.try(hn); t != nil {
					t.score = scores[hn.Name]
					return t
				}
			}
			i = j
		}
	}
	return nil
}

func (s *search) score(hns []*api.HyperNodeInfo) map[string]float64 {
	scores, err := s.r.ssn.HyperNodeOrderFn(s.job, nil, hns)
	if err != nil {
		klog.ErrorS(err, "Scoring hypernodes failed", "job", s.job.UID)
	}
	return scores
}

// try places the job's tasks within hn and undoes it, returning the trial
// when the job became ready or pipelined there.
func (s *search) try(hn *api.HyperNodeInfo) *trial {
	if s.failed[hn.Name] {
		return nil
	}
	s.job.NodesFitErrors = map[api.TaskID]*api.FitErrors{}
	left := s.tasks.Clone()
	stmt := s.r.allocateJob(s.queue, s.job, nil, left, hn)
	if stmt == nil || stmt.Operations() == 0 {
		s.failed[hn.Name] = true
		return nil
	}
	t := &trial{hyperNode: hn, plan: stmt.Plan(), left: left}
	stmt.Discard()
	return t
}

// replayed makes a trial's decisions again in a new statement; nil, and
// logged with keysAndValues, when the session no longer takes them.
func (r *run) replayed(plan framework.Plan, keysAndValues ...any) *framework.Statement {
	stmt := framework.NewStatement(r.ssn)
	if err := stmt.Replay(plan); err != nil {
		klog.ErrorS(err, "Replaying a placement tried in a hypernode failed", keysAndValues...)
		stmt.Discard()
		return nil
	}
	return stmt
}

// nodesOf returns the hypernode's nodes that can take tasks, in session
// order.
func (r *run) nodesOf(hn *api.HyperNodeInfo) []*api.NodeInfo {
	if nodes, ok := r.hyperNodeNodes[hn.Name]; ok {
		return nodes
	}
	if r.hyperNodeNodes == nil {
		r.hyperNodeNodes = map[string][]*api.NodeInfo{}
	}
	nodes := make([]*api.NodeInfo, 0, len(hn.Nodes))
	for _, n := range hn.Nodes {
		if n.Ready {
			nodes = append(nodes, n)
		}
	}
	r.hyperNodeNodes[hn.Name] = nodes
	return nodes
}

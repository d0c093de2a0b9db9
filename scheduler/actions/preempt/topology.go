package preempt

import (
	"errors"
	"math"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/eviction"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// candidate is a node where preemption would work, with the victims it needs,
// highest ranked first.
type candidate struct {
	node    string
	victims []*api.TaskInfo
}

// topologyAwarePreempt dry-runs preemption on the candidate nodes, picks the
// node that costs least, and evicts its victims there.
func (r *run) topologyAwarePreempt(stmt *framework.Statement, preemptor *api.TaskInfo, filter victimFilter, nodes []*api.NodeInfo) (bool, error) {
	if len(nodes) == 0 {
		return false, nil
	}
	job, ok := r.ssn.Jobs[preemptor.Job]
	if !ok {
		return false, errors.New("preemptor's job is not in the session")
	}
	queue := r.ssn.Queues[job.Queue]
	want := r.numCandidates(len(nodes))
	var found []candidate
	for _, node := range nodes {
		r.ssn.BeginVictimTrial()
		victims := r.minimalVictims(queue, preemptor, node, filter)
		r.ssn.EndVictimTrial()
		if len(victims) > 0 {
			found = append(found, candidate{node: node.Name, victims: victims})
			if len(found) >= want {
				break
			}
		}
	}
	if len(found) == 0 {
		return false, errors.New("no node where preemption makes room")
	}
	best := pickCandidate(found)
	tmp := framework.NewStatement(r.ssn)
	for _, v := range best.victims {
		if err := tmp.Evict(v, "preempt"); err != nil {
			klog.ErrorS(err, "Evict failed", "task", v.Key())
		}
	}
	if err := tmp.Pipeline(preemptor, best.node, true); err != nil {
		tmp.Discard()
		return false, err
	}
	stmt.Merge(tmp)
	return true, nil
}

// numCandidates is how many candidate nodes the dry run collects among n.
func (r *run) numCandidates(n int) int {
	k := n * r.minCandidatePercentage / 100
	if k < r.minCandidates {
		k = r.minCandidates
	}
	if k > r.maxCandidates {
		k = r.maxCandidates
	}
	if k > n {
		k = n
	}
	return k
}

// minimalVictims finds the fewest victims on the node that make room: evict
// in victim order until the preemptor fits, then spare, highest ranked
// first, every victim whose return still leaves room. Every eviction is
// tentative and undone before returning.
func (r *run) minimalVictims(queue *api.QueueInfo, preemptor *api.TaskInfo, node *api.NodeInfo, filter victimFilter) []*api.TaskInfo {
	ssn := r.ssn
	all := ssn.Preemptable(preemptor, candidatesOn(node, filter))
	if eviction.Validate(preemptor, node, all) != nil {
		return nil
	}
	roomFor := func() bool {
		return ssn.Allocatable(queue, preemptor) && placement.FitsFutureIdle(preemptor.InitResreq, node) &&
			ssn.PredicateFn(preemptor, node).IsSuccess()
	}

	trial := framework.NewStatement(ssn)
	var potential []*api.TaskInfo
	for order := ssn.VictimQueue(all, preemptor); !order.Empty(); {
		v := order.Pop()
		potential = append(potential, v)
		if err := trial.Evict(v, "preempt"); err != nil {
			trial.Discard()
			return nil
		}
		if roomFor() {
			break
		}
	}
	ok := len(potential) > 0 && ssn.PredicateFn(preemptor, node).IsSuccess()
	trial.Discard()
	if !ok {
		return nil
	}

	spared := map[api.TaskID]bool{}
	var victims []*api.TaskInfo
	for i := len(potential) - 1; i >= 0; i-- {
		p := potential[i]
		trial := framework.NewStatement(ssn)
		for _, v := range potential {
			if v != p && !spared[v.UID] {
				_ = trial.Evict(v, "preempt")
			}
		}
		fits := roomFor()
		trial.Discard()
		if fits {
			spared[p.UID] = true
		} else {
			victims = append(victims, p)
		}
	}
	return victims
}

// pickCandidate prefers, in turn: the lowest highest victim priority, the
// lowest sum of victim priorities, the fewest victims, the latest start of
// the highest-priority victims; then the first found.
func pickCandidate(cs []candidate) candidate {
	if len(cs) == 1 {
		return cs[0]
	}
	scores := []func(c candidate) int64{
		func(c candidate) int64 { return -int64(podPriority(c.victims[0].Pod)) },
		func(c candidate) int64 {
			var sum int64
			for _, v := range c.victims {
				sum += int64(podPriority(v.Pod)) + int64(math.MaxInt32+1)
			}
			return -sum
		},
		func(c candidate) int64 { return -int64(len(c.victims)) },
		func(c candidate) int64 { return earliestStart(c.victims).UnixNano() },
	}
	for _, score := range scores {
		var kept []candidate
		max := int64(math.MinInt64)
		for _, c := range cs {
			s := score(c)
			if s > max {
				max, kept = s, kept[:0]
			}
			if s == max {
				kept = append(kept, c)
			}
		}
		if len(kept) == 1 {
			return kept[0]
		}
		cs = kept
	}
	return cs[0]
}

// earliestStart is the earliest start among the highest-priority victims; a
// pod not started yet counts as starting now.
func earliestStart(victims []*api.TaskInfo) time.Time {
	start := func(t *api.TaskInfo) time.Time {
		if t.Pod.Status.StartTime != nil {
			return t.Pod.Status.StartTime.Time
		}
		return time.Now()
	}
	earliest, top := start(victims[0]), podPriority(victims[0].Pod)
	for _, v := range victims[1:] {
		switch p := podPriority(v.Pod); {
		case p == top && start(v).Before(earliest):
			earliest = start(v)
		case p > top:
			top, earliest = p, start(v)
		}
	}
	return earliest
}

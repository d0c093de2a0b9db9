package main

import (
	"fmt"
	"sort"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The hooks that choose among candidates (nodes, victims, jobs), asked as
// the actions ask them; the candidates are what the help text says.
var candidateHooks = map[string]string{
	"best_node":    "each pending pod, among the nodes passing predicate_batch, scored by node_order_batch",
	"preemptable":  "each pending pod, the running pods of other jobs as candidates",
	"reclaimable":  "each pending pod, the running pods of other queues' jobs as candidates",
	"allocatable":  "each pending pod in its job's queue",
	"preemptive":   "each pending pod in its job's queue",
	"victim_tasks": "the running pods",
	"target_job":   "the jobs",
}

// askCandidates asks one of candidateHooks; tasks are the pending pods
// asked about, jobs every job, both sorted.
func askCandidates(ssn *framework.Session, hook string, jobs []*api.JobInfo, tasks []*api.TaskInfo) ([]answer, error) {
	var running []*api.TaskInfo
	for _, j := range jobs {
		for _, t := range j.Tasks {
			if api.AllocatedStatus(t.Status) {
				running = append(running, t)
			}
		}
	}
	sort.Slice(running, func(i, k int) bool { return running[i].Key() < running[k].Key() })
	queueOf := func(t *api.TaskInfo) *api.QueueInfo {
		if j := ssn.Jobs[t.Job]; j != nil {
			return ssn.Queues[j.Queue]
		}
		return nil
	}
	var out []answer
	switch hook {
	case "best_node":
		for _, t := range tasks {
			out = append(out, answer{Pod: t.Key(), Answer: bestNode(ssn, t)})
		}
	case "preemptable", "reclaimable":
		for _, t := range tasks {
			var candidates []*api.TaskInfo
			for _, r := range running {
				if hook == "preemptable" && r.Job != t.Job || hook == "reclaimable" && queueOf(r) != queueOf(t) {
					candidates = append(candidates, r)
				}
			}
			out = append(out, answer{Pod: t.Key(), Answer: victimsVote(ssn, hook, t, candidates)})
		}
	case "allocatable", "preemptive":
		for _, t := range tasks {
			q := queueOf(t)
			if q == nil {
				return nil, fmt.Errorf("pod %s: its job's queue is not in the cluster", t.Key())
			}
			a := answer{Pod: t.Key(), Queue: q.Name}
			if hook == "allocatable" {
				a.Answer = ssn.Allocatable(q, t)
			} else {
				a.Answer = ssn.Preemptive(q, []*api.TaskInfo{t})
			}
			out = append(out, a)
		}
	case "victim_tasks":
		chosen := map[api.TaskID]bool{}
		for _, v := range ssn.VictimTasks(running) {
			chosen[v.UID] = true
		}
		for _, r := range running {
			out = append(out, answer{Pod: r.Key(), Answer: map[bool]string{true: "victim", false: "kept"}[chosen[r.UID]]})
		}
	case "target_job":
		target := ssn.TargetJob(jobs)
		for _, j := range jobs {
			out = append(out, answer{Job: string(j.UID), Answer: map[bool]string{true: "target", false: "-"}[target == j]})
		}
	}
	return out, nil
}

// bestNode asks best_node as allocate does: the nodes that pass, grouped
// by their score.
func bestNode(ssn *framework.Session, t *api.TaskInfo) string {
	var fit []*api.NodeInfo
	for _, n := range ssn.NodeList {
		if ssn.PredicateFn(t, n).IsSuccess() {
			fit = append(fit, n)
		}
	}
	if len(fit) == 0 {
		return "no node passes predicate_batch"
	}
	scores := make([]float64, len(fit))
	if err := ssn.BatchNodeOrderFn(t, fit, scores); err != nil {
		return "node_order_batch failed: " + err.Error()
	}
	byScore := map[float64][]*api.NodeInfo{}
	for i, n := range fit {
		byScore[scores[i]] = append(byScore[scores[i]], n)
	}
	if n := ssn.BestNodeFn(t, byScore); n != nil {
		return n.Name
	}
	return "no pick (the highest score decides)"
}

// victimsVote asks the module itself, not the tiers' combination, so that
// an abstention shows as one.
func victimsVote(ssn *framework.Session, hook string, t *api.TaskInfo, candidates []*api.TaskInfo) string {
	var victims []*api.TaskInfo
	voted := false
	for _, p := range ssn.Plugins() {
		if f, ok := p.(framework.PreemptableFilter); ok && hook == "preemptable" {
			victims, voted = f.Preemptable(t, candidates)
		}
		if f, ok := p.(framework.ReclaimableFilter); ok && hook == "reclaimable" {
			victims, voted = f.Reclaimable(t, candidates)
		}
	}
	if !voted {
		return fmt.Sprintf("abstains (%d candidates)", len(candidates))
	}
	names := make([]string, len(victims))
	for i, v := range victims {
		names[i] = v.Key()
	}
	sort.Strings(names)
	return fmt.Sprintf("victims %v of %d candidates", names, len(candidates))
}

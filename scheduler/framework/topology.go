package framework

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// openTopology builds the session's hypernodes and prepares each job's
// network topology as Volcano v1.15's OpenSession does: a highestTierName
// becomes its tier, soft mode becomes hard up to the cluster top (so a
// soft job prefers lower tiers but may use the whole cluster), and a job's
// allocated hypernode is dropped when it no longer exists or the job holds
// nothing, and worked out again from its tasks' nodes when unknown (after
// a restart). An empty mode counts as hard, the CRD's default.
//
// A sub-job's topology is prepared the same way, except that soft mode
// becomes hard up to the job's own tier limit when it has one; a job with
// sub-jobs takes as its allocated hypernode, when unknown, the lowest
// holding its sub-jobs' (Volcano's recoverAllocatedHyperNode).
func (ssn *Session) openTopology(objs []*topologyv1alpha1.HyperNode) {
	h := api.BuildHyperNodes(objs, ssn.NodeList)
	ssn.HyperNodes = h
	for _, w := range h.Warnings {
		logonce.Warning("hypernodes", w)
	}
	if h.Err != nil {
		logonce.Warning("hypernodes", "jobs with a network topology wait until the HyperNodes are mended: "+h.Err.Error())
	}
	top := h.Top().Tier
	for _, job := range ssn.JobList {
		if !job.ContainsNetworkTopology() {
			continue
		}
		nt := job.NetworkTopology
		ssn.namedTier(job, nt, "")
		for _, sj := range job.SubJobs {
			ssn.namedTier(job, sj.NetworkTopology, string(sj.UID))
		}
		softToHard(nt, top)
		subTop := top
		if nt != nil && nt.HighestTierAllowed != nil {
			subTop = *nt.HighestTierAllowed
		}
		for _, sj := range job.SubJobs {
			softToHard(sj.NetworkTopology, subTop)
		}
		if h.Err != nil {
			ssn.explainTopology(job, "the HyperNodes cannot be used, so jobs with a network topology wait: "+h.Err.Error())
			continue
		}
		if job.HasSubJobs() {
			ssn.recoverSubJobHyperNodes(job)
			continue
		}
		job.AllocatedHyperNode = ssn.recoveredHyperNode(job.AllocatedHyperNode, job.AllocatedTaskNum(), job.TaskStatusIndex)
	}
}

// namedTier defaults an empty mode to hard and turns a highestTierName
// into its tier; an unknown name leaves the topology without a tier
// limit, as in Volcano, and the job is told. of names the sub-job, if any.
func (ssn *Session) namedTier(job *api.JobInfo, nt *v1beta1.NetworkTopologySpec, of string) {
	if nt == nil {
		return
	}
	if nt.Mode == "" {
		nt.Mode = v1beta1.HardNetworkTopologyMode
	}
	if nt.HighestTierAllowed != nil || nt.HighestTierName == "" {
		return
	}
	tier, ok := ssn.HyperNodes.TierNames[nt.HighestTierName]
	if !ok {
		where := "networkTopology.highestTierName"
		if of != "" {
			where = "sub-job " + of + ": " + where
		}
		ssn.explainTopology(job, fmt.Sprintf("%s %q names no HyperNode tier; as in Volcano the job is placed without a tier limit", where, nt.HighestTierName))
		return
	}
	nt.HighestTierAllowed, nt.HighestTierName = &tier, ""
}

// softToHard makes a soft topology hard up to the given tier.
func softToHard(nt *v1beta1.NetworkTopologySpec, tier int) {
	if nt == nil || nt.Mode != v1beta1.SoftNetworkTopologyMode {
		return
	}
	t := tier
	nt.Mode, nt.HighestTierAllowed, nt.HighestTierName = v1beta1.HardNetworkTopologyMode, &t, ""
}

// recoverSubJobHyperNodes checks each sub-job's allocated hypernode as a
// job's is checked, and sets the job's, when it is unknown or a sub-job's
// was found again, to the lowest holding every sub-job's.
func (ssn *Session) recoverSubJobHyperNodes(job *api.JobInfo) {
	job.AllocatedHyperNode = ssn.keptHyperNode(job.AllocatedHyperNode, job.AllocatedTaskNum())
	found := false
	for _, sj := range job.SubJobs {
		placed := sj.AllocatedTaskNum()
		if sj.AllocatedHyperNode = ssn.keptHyperNode(sj.AllocatedHyperNode, placed); sj.AllocatedHyperNode != "" || sj.NetworkTopology == nil {
			continue
		}
		if sj.AllocatedHyperNode = ssn.recoveredHyperNode("", placed, sj.TaskStatusIndex); sj.AllocatedHyperNode != "" {
			found = true
		}
	}
	if job.AllocatedHyperNode != "" && !found {
		return
	}
	lca := ""
	for _, sj := range job.SubJobs {
		lca = ssn.HyperNodes.LCA(lca, sj.AllocatedHyperNode)
	}
	job.AllocatedHyperNode = lca
}

// keptHyperNode is the allocated hypernode while it exists and something
// is placed, "" otherwise.
func (ssn *Session) keptHyperNode(allocated string, placed int) string {
	if _, ok := ssn.HyperNodes.Info[allocated]; !ok || placed == 0 {
		return ""
	}
	return allocated
}

// refuseJob keeps a job Caldera cannot schedule as written out of every
// action (JobValid fails), and says why: logged once, a Warning Event and
// an Unschedulable condition on its PodGroup.
func (ssn *Session) refuseJob(job *api.JobInfo, reason, msg string) {
	if ssn.refused == nil {
		ssn.refused = map[api.JobID]*ValidateResult{}
	}
	ssn.refused[job.UID] = &ValidateResult{Pass: false, Reason: reason, Message: msg}
	// Each pending task carries the reason, so that its pod and the gang's
	// message (native or a Wasm port, which quote tasks' fit errors) say it.
	for id := range job.TaskStatusIndex[api.Pending] {
		fe := api.NewFitErrors()
		fe.SetError(msg)
		job.NodesFitErrors[id] = fe
	}
	logonce.Warning("session", job.Key()+": "+msg)
	if len(job.TaskStatusIndex[api.Pending]) > 0 {
		ssn.RecordPodGroupEvent(job, v1.EventTypeWarning, reason, msg)
		ssn.UpdatePodGroupCondition(job, ssn.NewCondition(v1beta1.PodGroupUnschedulableType, v1.ConditionTrue, reason, msg))
	}
}

// explainTopology tells a job that waits why its network topology is not
// applied as written: logged once, and a Warning Event on its PodGroup
// while it has pending tasks.
func (ssn *Session) explainTopology(job *api.JobInfo, msg string) {
	logonce.Warning("hypernodes", job.Key()+": "+msg)
	if len(job.TaskStatusIndex[api.Pending]) > 0 {
		ssn.RecordPodGroupEvent(job, v1.EventTypeWarning, string(v1beta1.PodGroupUnschedulableType), msg)
	}
}

// recoveredHyperNode keeps an allocated hypernode only while it exists
// and some of the tasks are allocated, and otherwise finds it again: the
// lowest-tier hypernode holding the nodes of all the allocated tasks.
func (ssn *Session) recoveredHyperNode(allocated string, placed int, tasks map[api.TaskStatus]api.TasksMap) string {
	if kept := ssn.keptHyperNode(allocated, placed); kept != "" || placed == 0 {
		return kept
	}
	h := ssn.HyperNodes
	var best *api.HyperNodeInfo
	for _, name := range h.Names() {
		hn := h.Info[name]
		if best != nil && hn.Tier >= best.Tier {
			continue
		}
		if holdsAllocated(hn, tasks) {
			best = hn
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

func holdsAllocated(hn *api.HyperNodeInfo, tasks map[api.TaskStatus]api.TasksMap) bool {
	for status, ts := range tasks {
		if !api.AllocatedStatus(status) {
			continue
		}
		for _, t := range ts {
			if t.NodeName == "" || !hn.NodeSet[t.NodeName] {
				return false
			}
		}
	}
	return true
}

// HasTopology reports whether the job goes through allocate's hypernode
// search: it has a network topology with a tier limit and the HyperNodes
// can be used.
func (ssn *Session) HasTopology(job *api.JobInfo) bool {
	hard, _ := job.HardTopology()
	return hard && ssn.HyperNodes.Err == nil
}

// TopologyWaits reports whether the job has a network topology that cannot
// be honoured this session (the HyperNodes are broken), so it must wait.
func (ssn *Session) TopologyWaits(job *api.JobInfo) bool {
	return job.ContainsNetworkTopology() && ssn.HyperNodes.Err != nil
}

// HyperNodeGradientFn asks the first plugin that offers hypernode
// gradients; without one the job may be placed anywhere within.
func (ssn *Session) HyperNodeGradientFn(job *api.JobInfo, sj *api.SubJobInfo, within *api.HyperNodeInfo, scope GradientScope, purpose SearchPurpose) [][]*api.HyperNodeInfo {
	for _, tier := range ssn.hooks.hyperNodeGrad {
		if len(tier) > 0 {
			return tier[0].fn.HyperNodeGradient(job, sj, within, scope, purpose)
		}
	}
	return [][]*api.HyperNodeInfo{{within}}
}

// HyperNodeOrderFn sums every plugin's scores of the hypernodes.
func (ssn *Session) HyperNodeOrderFn(job *api.JobInfo, sj *api.SubJobInfo, hyperNodes []*api.HyperNodeInfo) (map[string]float64, error) {
	total := make(map[string]float64, len(hyperNodes))
	var err error
	each(ssn.hooks.hyperNodeOrder, func(p HyperNodeScorer) {
		if err != nil {
			return
		}
		var scores map[string]float64
		if scores, err = p.HyperNodeOrder(job, sj, hyperNodes); err == nil {
			for name, s := range scores {
				total[name] += s
			}
		}
	})
	return total, err
}

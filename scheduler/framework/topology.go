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
		if job.PodGroup != nil && len(job.PodGroup.Spec.SubGroupPolicy) > 0 {
			ssn.refuseJob(job, "NotImplemented", "spec.subGroupPolicy (sub-group gangs and their network topologies) is not implemented in Caldera, so the job is not scheduled; see README")
			continue
		}
		nt := job.NetworkTopology
		if nt == nil {
			continue
		}
		if nt.Mode == "" {
			nt.Mode = v1beta1.HardNetworkTopologyMode
		}
		if nt.HighestTierAllowed == nil && nt.HighestTierName != "" {
			tier, ok := h.TierNames[nt.HighestTierName]
			if !ok {
				ssn.explainTopology(job, fmt.Sprintf("networkTopology.highestTierName %q names no HyperNode tier; as in Volcano the job is placed without a tier limit", nt.HighestTierName))
			} else {
				nt.HighestTierAllowed, nt.HighestTierName = &tier, ""
			}
		}
		if nt.Mode == v1beta1.SoftNetworkTopologyMode {
			t := top
			nt.Mode, nt.HighestTierAllowed, nt.HighestTierName = v1beta1.HardNetworkTopologyMode, &t, ""
		}
		if h.Err != nil {
			ssn.explainTopology(job, "the HyperNodes cannot be used, so jobs with a network topology wait: "+h.Err.Error())
			continue
		}
		ssn.recoverAllocatedHyperNode(job)
	}
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

// recoverAllocatedHyperNode keeps the job's allocated hypernode only while
// it exists and the job holds tasks, and otherwise finds it again: the
// lowest-tier hypernode holding the nodes of all its allocated tasks.
func (ssn *Session) recoverAllocatedHyperNode(job *api.JobInfo) {
	h := ssn.HyperNodes
	if job.AllocatedHyperNode != "" {
		if _, ok := h.Info[job.AllocatedHyperNode]; !ok || job.AllocatedTaskNum() == 0 {
			job.AllocatedHyperNode = ""
		}
	}
	if job.AllocatedHyperNode != "" || job.AllocatedTaskNum() == 0 {
		return
	}
	var best *api.HyperNodeInfo
	for _, name := range h.Names() {
		hn := h.Info[name]
		if best != nil && hn.Tier >= best.Tier {
			continue
		}
		if holdsAllocated(hn, job) {
			best = hn
		}
	}
	if best != nil {
		job.AllocatedHyperNode = best.Name
	}
}

func holdsAllocated(hn *api.HyperNodeInfo, job *api.JobInfo) bool {
	for status, tasks := range job.TaskStatusIndex {
		if !api.AllocatedStatus(status) {
			continue
		}
		for _, t := range tasks {
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
	return job.NetworkTopology != nil && ssn.HyperNodes.Err != nil
}

// HyperNodeGradientFn asks the first plugin that offers hypernode
// gradients; without one the job may be placed anywhere within.
func (ssn *Session) HyperNodeGradientFn(job *api.JobInfo, within *api.HyperNodeInfo, scope GradientScope, purpose SearchPurpose) [][]*api.HyperNodeInfo {
	for _, tier := range ssn.hooks.hyperNodeGrad {
		if len(tier) > 0 {
			return tier[0].fn.HyperNodeGradient(job, within, scope, purpose)
		}
	}
	return [][]*api.HyperNodeInfo{{within}}
}

// HyperNodeOrderFn sums every plugin's scores of the hypernodes.
func (ssn *Session) HyperNodeOrderFn(job *api.JobInfo, hyperNodes []*api.HyperNodeInfo) (map[string]float64, error) {
	total := make(map[string]float64, len(hyperNodes))
	var err error
	each(ssn.hooks.hyperNodeOrder, func(p HyperNodeScorer) {
		if err != nil {
			return
		}
		var scores map[string]float64
		if scores, err = p.HyperNodeOrder(job, hyperNodes); err == nil {
			for name, s := range scores {
				total[name] += s
			}
		}
	})
	return total, err
}

package framework

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// HasPodRules reports whether a pod has rules that depend on other pods:
// inter-pod affinity or anti-affinity terms, or topology spread
// constraints.
func HasPodRules(p *v1.Pod) bool {
	if p == nil {
		return false
	}
	if len(p.Spec.TopologySpreadConstraints) > 0 {
		return true
	}
	a := p.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// HasPodRules reports whether any pod of the session, pending or on a
// node, has rules that depend on other pods. Without any, such rules pass
// every node and score nothing, and plugins need not index the session's
// pods. It is computed once per session.
func (ssn *Session) HasPodRules() bool {
	ssn.podRulesOnce.Do(func() {
		for _, n := range ssn.NodeList {
			for _, t := range n.Tasks {
				if HasPodRules(t.Pod) {
					ssn.podRules = true
					return
				}
			}
		}
		for _, j := range ssn.JobList {
			for _, t := range j.Tasks {
				if HasPodRules(t.Pod) {
					ssn.podRules = true
					return
				}
			}
		}
	})
	return ssn.podRules
}

// SpreadDefaults returns the selector of kube-scheduler's system default
// spread constraints for a pod (hostname maxSkew 3 and zone maxSkew 5, both
// ScheduleAnyway, as Volcano's nodeorder configures PodTopologySpread), or
// nil when the pod states constraints of its own or nothing in the
// session's Workloads selects it. Memoised per pod for the session.
func (ssn *Session) SpreadDefaults(p *v1.Pod) labels.Selector {
	if p == nil || len(p.Spec.TopologySpreadConstraints) > 0 || ssn.Workloads.Empty() {
		return nil
	}
	ssn.spreadMu.Lock()
	defer ssn.spreadMu.Unlock()
	if sel, ok := ssn.spreadDefaults[p]; ok {
		return sel
	}
	sel := ssn.Workloads.DefaultSelector(p)
	if sel.Empty() {
		sel = nil
	}
	if ssn.spreadDefaults == nil {
		ssn.spreadDefaults = map[*v1.Pod]labels.Selector{}
	}
	ssn.spreadDefaults[p] = sel
	return sel
}

// HasSpreadDefaults reports whether any pending task of the session gets
// system default spread constraints.
func (ssn *Session) HasSpreadDefaults() bool {
	if ssn.Workloads.Empty() {
		return false
	}
	for _, j := range ssn.JobList {
		for _, t := range j.Tasks {
			if t.Status == api.Pending && ssn.SpreadDefaults(t.Pod) != nil {
				return true
			}
		}
	}
	return false
}

// BeginVictimTrial marks the start of a preemption dry run: evictions made
// until EndVictimTrial only test whether victims would make room, and are
// undone. Volcano runs that dry run on simulated state, which a plugin
// updates for removed victims only when its tier entry enables the
// preemptable or allocatable hook; plugins that mirror it ask InVictimTrial.
func (ssn *Session) BeginVictimTrial() { ssn.victimTrial = true }

// EndVictimTrial ends the dry run.
func (ssn *Session) EndVictimTrial() { ssn.victimTrial = false }

// InVictimTrial reports whether a preemption dry run is under way.
func (ssn *Session) InVictimTrial() bool { return ssn.victimTrial }

// TakesPartInVictimTrials reports whether the first tier entry naming a
// plugin enables its preemptable or allocatable hook: Volcano applies a
// dry run's removed victims to such a plugin's simulated state only.
func (ssn *Session) TakesPartInVictimTrials(name string) bool {
	o := ssn.PluginOption(name)
	return o != nil && (conf.IsEnabled(o.EnabledPreemptable) || conf.IsEnabled(o.EnabledAllocatable))
}

// PluginOption returns the first tier entry naming a plugin, nil if none.
func (ssn *Session) PluginOption(name string) *conf.PluginOption {
	for ti := range ssn.Tiers {
		for pi := range ssn.Tiers[ti].Plugins {
			if o := &ssn.Tiers[ti].Plugins[pi]; o.Name == name {
				return o
			}
		}
	}
	return nil
}

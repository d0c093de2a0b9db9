package framework

import (
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// hookTable holds, for every hook, the plugins that take part in it this
// session. It is built once at session open: a plugin takes part when it
// implements the hook's interface, offers it (HookFilter), and its tier entry
// enables the hook's flag.
type hookTable struct {
	jobOrder         tiered[JobOrderer]
	queueOrder       tiered[QueueOrderer]
	victimQueueOrder tiered[VictimQueueOrderer]
	taskOrder        tiered[TaskOrderer]
	prePredicate     tiered[PrePredicater]
	predicate        tiered[Predicater]
	nodeOrder        tiered[NodeScorer]
	batchNodeOrder   tiered[BatchNodeScorer]
	nodeMap          tiered[NodeMapper]
	nodeReduce       tiered[NodeReducer]
	bestNode         tiered[BestNodePicker]
	preemptable      tiered[PreemptableFilter]
	reclaimable      tiered[ReclaimableFilter]
	overused         tiered[OverusedChecker]
	allocatable      tiered[AllocatableChecker]
	preemptive       tiered[PreemptiveChecker]
	jobReady         tiered[JobReadyChecker]
	jobPipelined     tiered[JobPipelinedVoter]
	jobValid         tiered[JobValidator]
	jobEnqueueable   tiered[JobEnqueueableVoter]
	jobEnqueued      tiered[JobEnqueuedObserver]
	jobStarving      tiered[JobStarvingChecker]
	victimTasks      tiered[VictimTasksProvider]
	targetJob        tiered[TargetJobPicker]
	reservedNodes    tiered[ReservedNodesMarker]
	subJobReady      tiered[SubJobReadyChecker]
	subJobPipelined  tiered[SubJobPipelinedVoter]
	subJobOrder      tiered[SubJobOrderer]
	hyperNodeOrder   tiered[HyperNodeScorer]
	hyperNodeGrad    tiered[HyperNodeGradienter]
	evictable        tiered[EvictableFilter]
	eventHandlers    tiered[EventHandler]
}

// instance is one configured plugin in one session.
type instance struct {
	plugin Plugin
	option *conf.PluginOption
}

// always marks hooks that have no enable flag in Volcano.
func always(*conf.PluginOption) *bool { t := true; return &t }

// register adds p to t when p implements F, offers hook and flag enables it.
func register[F any](t *tiered[F], tier int, in instance, hook Hook, flag func(*conf.PluginOption) *bool) {
	for len(*t) <= tier {
		*t = append(*t, nil)
	}
	fn, ok := in.plugin.(F)
	if !ok || !conf.IsEnabled(flag(in.option)) {
		return
	}
	if f, ok := in.plugin.(HookFilter); ok && !f.Offers(hook) {
		return
	}
	(*t)[tier] = append((*t)[tier], entry[F]{plugin: in.plugin.Name(), fn: fn})
}

func buildHookTable(tiers [][]instance) *hookTable {
	h := &hookTable{}
	for ti, tier := range tiers {
		for _, in := range tier {
			register(&h.jobOrder, ti, in, HookJobOrder, func(o *conf.PluginOption) *bool { return o.EnabledJobOrder })
			register(&h.queueOrder, ti, in, HookQueueOrder, func(o *conf.PluginOption) *bool { return o.EnabledQueueOrder })
			register(&h.victimQueueOrder, ti, in, HookVictimQueueOrder, always)
			register(&h.taskOrder, ti, in, HookTaskOrder, func(o *conf.PluginOption) *bool { return o.EnabledTaskOrder })
			register(&h.prePredicate, ti, in, HookPrePredicate, func(o *conf.PluginOption) *bool { return o.EnabledPredicate })
			register(&h.predicate, ti, in, HookPredicate, func(o *conf.PluginOption) *bool { return o.EnabledPredicate })
			register(&h.nodeOrder, ti, in, HookNodeOrder, func(o *conf.PluginOption) *bool { return o.EnabledNodeOrder })
			register(&h.batchNodeOrder, ti, in, HookBatchNodeOrder, func(o *conf.PluginOption) *bool { return o.EnabledNodeOrder })
			register(&h.nodeMap, ti, in, HookNodeMap, func(o *conf.PluginOption) *bool { return o.EnabledNodeOrder })
			register(&h.nodeReduce, ti, in, HookNodeReduce, func(o *conf.PluginOption) *bool { return o.EnabledNodeOrder })
			register(&h.bestNode, ti, in, HookBestNode, func(o *conf.PluginOption) *bool { return o.EnabledBestNode })
			register(&h.preemptable, ti, in, HookPreemptable, func(o *conf.PluginOption) *bool { return o.EnabledPreemptable })
			register(&h.reclaimable, ti, in, HookReclaimable, func(o *conf.PluginOption) *bool { return o.EnabledReclaimable })
			register(&h.overused, ti, in, HookOverused, func(o *conf.PluginOption) *bool { return o.EnabledOverused })
			register(&h.allocatable, ti, in, HookAllocatable, func(o *conf.PluginOption) *bool { return o.EnabledAllocatable })
			register(&h.preemptive, ti, in, HookPreemptive, func(o *conf.PluginOption) *bool { return o.EnablePreemptive })
			register(&h.jobReady, ti, in, HookJobReady, func(o *conf.PluginOption) *bool { return o.EnabledJobReady })
			register(&h.jobPipelined, ti, in, HookJobPipelined, func(o *conf.PluginOption) *bool { return o.EnabledJobPipelined })
			register(&h.jobValid, ti, in, HookJobValid, always)
			// Volcano gates both enqueue hooks on the one enableJobEnqueued flag.
			register(&h.jobEnqueueable, ti, in, HookJobEnqueueable, func(o *conf.PluginOption) *bool { return o.EnabledJobEnqueued })
			register(&h.jobEnqueued, ti, in, HookJobEnqueued, func(o *conf.PluginOption) *bool { return o.EnabledJobEnqueued })
			register(&h.jobStarving, ti, in, HookJobStarving, func(o *conf.PluginOption) *bool { return o.EnabledJobStarving })
			register(&h.victimTasks, ti, in, HookVictimTasks, func(o *conf.PluginOption) *bool { return o.EnabledVictim })
			register(&h.targetJob, ti, in, HookTargetJob, func(o *conf.PluginOption) *bool { return o.EnabledTargetJob })
			register(&h.reservedNodes, ti, in, HookReservedNodes, func(o *conf.PluginOption) *bool { return o.EnabledReservedNodes })
			register(&h.subJobReady, ti, in, HookSubJobReady, func(o *conf.PluginOption) *bool { return o.EnabledSubJobReady })
			register(&h.subJobPipelined, ti, in, HookSubJobPipelined, func(o *conf.PluginOption) *bool { return o.EnabledSubJobPipelined })
			register(&h.subJobOrder, ti, in, HookSubJobOrder, func(o *conf.PluginOption) *bool { return o.EnabledSubJobOrder })
			register(&h.hyperNodeOrder, ti, in, HookHyperNodeOrder, func(o *conf.PluginOption) *bool { return o.EnabledHyperNodeOrder })
			register(&h.hyperNodeGrad, ti, in, HookHyperNodeGrad, func(o *conf.PluginOption) *bool { return o.EnabledHyperNodeGradient })
			register(&h.evictable, ti, in, HookEvictable, always)
			register(&h.eventHandlers, ti, in, HookEventHandler, always)
		}
	}
	return h
}

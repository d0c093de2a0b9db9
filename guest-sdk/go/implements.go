package caldera

// implemented holds the registered plugin as each hook interface it
// implements, nil for the others. Register asserts them once: the Go
// toolchain's wasm port keeps no cache for assertions to an interface
// (internal/abi.UseInterfaceSwitchCache), so each one looked up a runtime
// hash table, several times a call and once more per event
// (docs/performance.md, "Where a Go-toolchain port's time goes").
type implemented struct {
	jobOrderKeyer         JobOrderKeyer
	taskOrderKeyer        TaskOrderKeyer
	queueOrderKeyer       QueueOrderKeyer
	victimQueueOrderKeyer VictimQueueOrderKeyer
	prePredicater         PrePredicater
	predicateBatcher      PredicateBatcher
	nodeOrderBatcher      NodeOrderBatcher
	bestNodePicker        BestNodePicker
	preemptableFilter     PreemptableFilter
	reclaimableFilter     ReclaimableFilter
	evictableFilter       EvictableFilter
	hyperNodeScorer       HyperNodeScorer
	hyperNodeGradienter   HyperNodeGradienter
	victimTasksProvider   VictimTasksProvider
	overusedChecker       OverusedChecker
	allocatableChecker    AllocatableChecker
	preemptiveChecker     PreemptiveChecker
	jobReadyChecker       JobReadyChecker
	jobStarvingChecker    JobStarvingChecker
	jobPipelinedVoter     JobPipelinedVoter
	jobEnqueueableVoter   JobEnqueueableVoter
	jobValidator          JobValidator
	targetJobPicker       TargetJobPicker
	sessionOpener         SessionOpener
	sessionCloser         SessionCloser
	eventObserver         EventObserver
	jobEnqueuedObserver   JobEnqueuedObserver
	nodeLocalScorer       NodeLocalScorer
	shapeLocalPrePred     ShapeLocalPrePredicater
	sessionNodeLocal      SessionNodeLocalPredicates
	nodeLocalClasser      NodeLocalClasser
	domainRuler           DomainRuler
	rulelessScorer        RulelessScorer
	cacheEventHandler     CacheEventHandler
	allocator             Allocator
}

var impl implemented

// implementationOf asserts p to every hook interface once.
func implementationOf(p Plugin) implemented {
	var i implemented
	i.jobOrderKeyer, _ = p.(JobOrderKeyer)
	i.taskOrderKeyer, _ = p.(TaskOrderKeyer)
	i.queueOrderKeyer, _ = p.(QueueOrderKeyer)
	i.victimQueueOrderKeyer, _ = p.(VictimQueueOrderKeyer)
	i.prePredicater, _ = p.(PrePredicater)
	i.predicateBatcher, _ = p.(PredicateBatcher)
	i.nodeOrderBatcher, _ = p.(NodeOrderBatcher)
	i.bestNodePicker, _ = p.(BestNodePicker)
	i.preemptableFilter, _ = p.(PreemptableFilter)
	i.reclaimableFilter, _ = p.(ReclaimableFilter)
	i.evictableFilter, _ = p.(EvictableFilter)
	i.hyperNodeScorer, _ = p.(HyperNodeScorer)
	i.hyperNodeGradienter, _ = p.(HyperNodeGradienter)
	i.allocator, _ = p.(Allocator)
	i.victimTasksProvider, _ = p.(VictimTasksProvider)
	i.overusedChecker, _ = p.(OverusedChecker)
	i.allocatableChecker, _ = p.(AllocatableChecker)
	i.preemptiveChecker, _ = p.(PreemptiveChecker)
	i.jobReadyChecker, _ = p.(JobReadyChecker)
	i.jobStarvingChecker, _ = p.(JobStarvingChecker)
	i.jobPipelinedVoter, _ = p.(JobPipelinedVoter)
	i.jobEnqueueableVoter, _ = p.(JobEnqueueableVoter)
	i.jobValidator, _ = p.(JobValidator)
	i.targetJobPicker, _ = p.(TargetJobPicker)
	i.sessionOpener, _ = p.(SessionOpener)
	i.sessionCloser, _ = p.(SessionCloser)
	i.eventObserver, _ = p.(EventObserver)
	i.jobEnqueuedObserver, _ = p.(JobEnqueuedObserver)
	i.nodeLocalScorer, _ = p.(NodeLocalScorer)
	i.shapeLocalPrePred, _ = p.(ShapeLocalPrePredicater)
	i.sessionNodeLocal, _ = p.(SessionNodeLocalPredicates)
	i.nodeLocalClasser, _ = p.(NodeLocalClasser)
	i.domainRuler, _ = p.(DomainRuler)
	i.rulelessScorer, _ = p.(RulelessScorer)
	i.cacheEventHandler, _ = p.(CacheEventHandler)
	return i
}

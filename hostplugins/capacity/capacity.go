package capacity

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "capacity"

// The plugin's arguments.
const (
	// AncestorReclaimLevelKey says how many levels of ancestors a reclaim
	// also weighs, with enableHierarchy.
	AncestorReclaimLevelKey = "ancestorReclaimLevel"
	// DRAKey and DRAConsumableKey turn on Volcano's quotas of dynamically
	// allocated devices per DeviceClass, which Caldera does not keep.
	DRAKey           = "capacity.DynamicResourceAllocationEnable"
	DRAConsumableKey = "capacity.DRAConsumableCapacityEnable"
)

// rootQueue is the queue at the top of every hierarchy, the one Volcano's
// scheduler (and Caldera's cache) creates at start.
const rootQueue api.QueueID = "root"

// Plugin holds every queue between its guarantee and its capability and
// reclaims what a queue holds beyond its deserved resources.
type Plugin struct {
	ancestorReclaimLevel int

	ssn            *framework.Session
	hierarchy      bool
	total          *api.Resource
	totalGuarantee *api.Resource
	queues         map[api.QueueID]*queueAttr
	// broken says why the queue hierarchy cannot be used this session, ""
	// when it can; while it is set the plugin admits, places and reclaims
	// nothing, as Volcano's does.
	broken string
}

var (
	_ framework.QueueOrderer        = &Plugin{}
	_ framework.VictimQueueOrderer  = &Plugin{}
	_ framework.AllocatableChecker  = &Plugin{}
	_ framework.PreemptiveChecker   = &Plugin{}
	_ framework.ReclaimableFilter   = &Plugin{}
	_ framework.EvictableFilter     = &Plugin{}
	_ framework.JobEnqueueableVoter = &Plugin{}
	_ framework.JobEnqueuedObserver = &Plugin{}
	_ framework.EventHandler        = &Plugin{}
	_ framework.HierarchyTaker      = &Plugin{}
)

// New reads ancestorReclaimLevel (a whole number, 0 or more) and refuses to
// turn on the device-class quotas it does not keep.
func New(args framework.Arguments) (framework.Plugin, error) {
	p := &Plugin{}
	if err := args.Int(AncestorReclaimLevelKey, &p.ancestorReclaimLevel); err != nil {
		return nil, err
	}
	if p.ancestorReclaimLevel < 0 {
		return nil, fmt.Errorf("argument %q: expected 0 or more, got %d", AncestorReclaimLevelKey, p.ancestorReclaimLevel)
	}
	for _, key := range []string{DRAKey, DRAConsumableKey} {
		on := false
		if err := args.Bool(key, &on); err != nil {
			return nil, err
		}
		if on {
			return nil, fmt.Errorf("argument %q: queue quotas of dynamically allocated devices (deviceclass/ names in a queue's capability, deserved or guarantee) are not implemented (README, \"Volcano's plugins and actions\"): set it to false or remove it", key)
		}
	}
	return p, nil
}

// Name returns "capacity".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen builds each queue's accounting, flat or as a tree.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	p.total = api.EmptyResource().Add(ssn.TotalResource)
	p.totalGuarantee = api.EmptyResource()
	p.queues = map[api.QueueID]*queueAttr{}
	opt := ssn.PluginOption(Name)
	p.hierarchy = opt != nil && conf.IsEnabled(opt.EnabledHierarchy)
	warnDeviceClassQuotas(ssn)
	if p.hierarchy {
		if err := p.buildTree(); err != nil {
			p.refuseSession(err)
		}
		return
	}
	p.buildFlat()
}

// OnSessionClose publishes each queue's allocated and deserved resources and
// share, and drops the session's accounting.
func (p *Plugin) OnSessionClose(*framework.Session) {
	for _, a := range p.queues {
		resutil.PublishQueue(a.name, a.Allocated, a.deserved, a.share)
	}
	p.queues = nil
	p.ssn = nil
}

// TakesHierarchy says that enableHierarchy makes the queues a tree.
func (p *Plugin) TakesHierarchy() {}

// Package hostplugins holds the native default plugins, one package each, and
// builds the registry that names them.
package hostplugins

import (
	"github.com/caldera-scheduler/caldera/hostplugins/binpack"
	"github.com/caldera-scheduler/caldera/hostplugins/capacity"
	"github.com/caldera-scheduler/caldera/hostplugins/cdp"
	"github.com/caldera-scheduler/caldera/hostplugins/conformance"
	"github.com/caldera-scheduler/caldera/hostplugins/deviceshare"
	"github.com/caldera-scheduler/caldera/hostplugins/drf"
	"github.com/caldera-scheduler/caldera/hostplugins/extender"
	"github.com/caldera-scheduler/caldera/hostplugins/gang"
	"github.com/caldera-scheduler/caldera/hostplugins/networktopologyaware"
	"github.com/caldera-scheduler/caldera/hostplugins/nodegroup"
	"github.com/caldera-scheduler/caldera/hostplugins/nodeorder"
	"github.com/caldera-scheduler/caldera/hostplugins/numaaware"
	"github.com/caldera-scheduler/caldera/hostplugins/overcommit"
	"github.com/caldera-scheduler/caldera/hostplugins/pdb"
	"github.com/caldera-scheduler/caldera/hostplugins/predicates"
	"github.com/caldera-scheduler/caldera/hostplugins/priority"
	"github.com/caldera-scheduler/caldera/hostplugins/proportion"
	"github.com/caldera-scheduler/caldera/hostplugins/rescheduling"
	"github.com/caldera-scheduler/caldera/hostplugins/resourcequota"
	"github.com/caldera-scheduler/caldera/hostplugins/resourcestrategyfit"
	"github.com/caldera-scheduler/caldera/hostplugins/sla"
	"github.com/caldera-scheduler/caldera/hostplugins/tasktopology"
	"github.com/caldera-scheduler/caldera/hostplugins/tdm"
	"github.com/caldera-scheduler/caldera/hostplugins/usage"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Registry returns a registry of every native plugin.
func Registry() framework.Registry {
	r := framework.NewRegistry()
	for name, f := range map[string]framework.Factory{
		binpack.Name:              binpack.New,
		capacity.Name:             capacity.New,
		cdp.Name:                  cdp.New,
		conformance.Name:          conformance.New,
		deviceshare.Name:          deviceshare.New,
		drf.Name:                  drf.New,
		extender.Name:             extender.NewFactory(),
		gang.Name:                 gang.New,
		networktopologyaware.Name: networktopologyaware.New,
		nodegroup.Name:            nodegroup.New,
		nodeorder.Name:            nodeorder.NewFactory(),
		numaaware.Name:            numaaware.New,
		overcommit.Name:           overcommit.New,
		pdb.Name:                  pdb.New,
		predicates.Name:           predicates.New,
		priority.Name:             priority.New,
		proportion.Name:           proportion.New,
		rescheduling.Name:         rescheduling.New,
		resourcequota.Name:        resourcequota.New,
		resourcestrategyfit.Name:  resourcestrategyfit.New,
		sla.Name:                  sla.New,
		tasktopology.Name:         tasktopology.New,
		tdm.Name:                  tdm.New,
		usage.Name:                usage.New,
	} {
		// The names are distinct constants; a clash is a programming error
		// that the registry test catches.
		_ = r.Register(name, f)
	}
	return r
}

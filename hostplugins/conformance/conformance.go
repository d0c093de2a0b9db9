package conformance

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "conformance"

// The built-in priority classes of the pods that keep a cluster or a node
// alive.
const (
	systemClusterCritical = "system-cluster-critical"
	systemNodeCritical    = "system-node-critical"
)

// Plugin protects critical pods from eviction.
type Plugin struct{}

var (
	_ framework.PreemptableFilter = &Plugin{}
	_ framework.ReclaimableFilter = &Plugin{}
	_ framework.EvictableFilter   = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "conformance".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen does nothing: the plugin has no per-session state.
func (p *Plugin) OnSessionOpen(*framework.Session) {}

// OnSessionClose does nothing.
func (p *Plugin) OnSessionClose(*framework.Session) {}

// Preemptable allows every candidate that is not critical.
func (p *Plugin) Preemptable(_ *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return evictable(preemptees), true
}

// Reclaimable allows every candidate that is not critical.
func (p *Plugin) Reclaimable(_ *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return evictable(reclaimees), true
}

// Evictable allows every gang eviction candidate that is not critical.
func (p *Plugin) Evictable(_ *framework.EvictionContext, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return evictable(candidates), true
}

func evictable(candidates []*api.TaskInfo) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, t := range candidates {
		if !critical(t) {
			out = append(out, t)
		}
	}
	return out
}

func critical(t *api.TaskInfo) bool {
	if t.Namespace == metav1.NamespaceSystem {
		return true
	}
	if t.Pod == nil {
		return false
	}
	class := t.Pod.Spec.PriorityClassName
	return class == systemClusterCritical || class == systemNodeCritical
}

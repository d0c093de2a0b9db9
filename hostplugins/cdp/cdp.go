package cdp

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "cdp"

// CooldownKey is the pod label, or annotation, holding the cool-down time.
const CooldownKey = "volcano.sh/cooldown-time"

// now is the clock cool-downs are measured with.
var now = time.Now

// Plugin keeps pods in their cool-down out of the victims.
type Plugin struct{}

var (
	_ framework.PreemptableFilter = &Plugin{}
	_ framework.ReclaimableFilter = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "cdp".
func (*Plugin) Name() string { return Name }

// OnSessionOpen does nothing: the candidates carry what the plugin reads.
func (*Plugin) OnSessionOpen(*framework.Session) {}

// OnSessionClose does nothing.
func (*Plugin) OnSessionClose(*framework.Session) {}

// Preemptable keeps the candidates out of their cool-down.
func (*Plugin) Preemptable(_ *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return outOfCooldown(candidates), true
}

// Reclaimable keeps the candidates out of their cool-down.
func (*Plugin) Reclaimable(_ *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return outOfCooldown(candidates), true
}

func outOfCooldown(candidates []*api.TaskInfo) []*api.TaskInfo {
	var victims []*api.TaskInfo
	for _, t := range candidates {
		if !cooling(t.Pod) {
			victims = append(victims, t)
		}
	}
	return victims
}

// cooling reports whether the pod is Running and was scheduled less than
// its cool-down time ago.
func cooling(pod *v1.Pod) bool {
	if pod == nil || pod.Status.Phase != v1.PodRunning {
		return false
	}
	cooldown, ok := cooldownOf(pod)
	if !ok {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionTrue {
			return c.LastTransitionTime.Add(cooldown).After(now())
		}
	}
	return false
}

// cooldownOf reads the label, else the annotation.
func cooldownOf(pod *v1.Pod) (time.Duration, bool) {
	v, ok := pod.Labels[CooldownKey]
	if !ok {
		if v, ok = pod.Annotations[CooldownKey]; !ok {
			return 0, false
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		logonce.Warning(Name, fmt.Sprintf("pod %s/%s: %s=%q is not a duration such as 600s; the pod has no cool-down", pod.Namespace, pod.Name, CooldownKey, v))
		return 0, false
	}
	return d, true
}

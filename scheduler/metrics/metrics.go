// Package metrics holds the scheduler's Prometheus metrics. Names follow
// Volcano's scheduler metrics with the prefix caldera_ instead of volcano_,
// so that dashboards carry over by renaming.
//
// The collectors are package values, as in Volcano, updated by the core,
// the actions and the plugins; `caldera run` registers them on the registry
// it serves at /metrics. Updating an unregistered collector costs little
// and is harmless, so the simulator and tests need no setup.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "caldera"

var (
	// E2ESchedulingLatency is the time of one whole session: open, actions,
	// close.
	E2ESchedulingLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "e2e_scheduling_latency_milliseconds",
		Help:    "E2E scheduling latency in milliseconds (scheduling algorithm + binding)",
		Buckets: prometheus.ExponentialBuckets(5, 2, 15),
	})
	// ActionLatency is the time of one action in one session.
	ActionLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "action_scheduling_latency_microseconds",
		Help:    "Action scheduling latency in microseconds",
		Buckets: prometheus.ExponentialBuckets(5, 2, 22),
	}, []string{"action"})
	// PluginLatency is the time a plugin takes to open or close a session
	// (OnSession is "OnSessionOpen" or "OnSessionClose").
	PluginLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "plugin_scheduling_latency_microseconds",
		Help:    "Plugin scheduling latency in microseconds",
		Buckets: prometheus.ExponentialBuckets(5, 2, 22),
	}, []string{"plugin", "OnSession"})
	// PluginCalls and PluginCallFailures count hook calls into plugins that
	// run outside the scheduler's own code (Wasm modules, extenders).
	PluginCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "plugin_calls_total",
		Help: "Calls into sandboxed or remote plugins, by plugin and hook",
	}, []string{"plugin", "hook"})
	// PluginCallDuration is the time each call into such a plugin takes,
	// request encoding and reply decoding included: where a session's
	// time goes, hook by hook.
	PluginCallDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "plugin_call_duration_seconds",
		Help:    "Duration of calls into sandboxed or remote plugins, by plugin and hook",
		Buckets: prometheus.ExponentialBuckets(2e-6, 4, 12),
	}, []string{"plugin", "hook"})
	PluginCallFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "plugin_call_failures_total",
		Help: "Failed calls into sandboxed or remote plugins, by plugin, hook and cause",
	}, []string{"plugin", "hook", "cause"})
	// EventHandlerFailures counts object events whose handler failed and
	// that were handled by the handler's failure policy instead.
	EventHandlerFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "event_handler_failures_total",
		Help: "Object events whose event handler failed, by handler, kind and what was done instead (default: recorded as they came; drop: kept out of the cache)",
	}, []string{"handler", "kind", "fallback"})
	// EventHandlerActions counts what event handlers decided, by action.
	EventHandlerActions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "event_handler_events_total",
		Help: "Object events seen by sandboxed event handlers, by handler, kind and action (pass, drop, adjust)",
	}, []string{"handler", "kind", "action"})
	// CustomInformerErrors counts failed reads of custom informers'
	// sources; the last good objects stay.
	CustomInformerErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "custom_informer_errors_total",
		Help: "Failed reads of a custom informer's source; its last good objects stay",
	}, []string{"informer"})
	// ScheduleAttempts counts tasks a session tried to place, by result:
	// "scheduled" (a bind was sent) or "unschedulable".
	ScheduleAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "schedule_attempts_total",
		Help: "Number of attempts to schedule pods, by the result",
	}, []string{"result"})
	// BindFailures counts binds the API server refused; the pod is resynced
	// and tried again.
	BindFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "bind_failures_total",
		Help: "Binds refused by the API server",
	})
	// PreemptionVictims counts pods evicted to make room, by the action
	// that chose them (preempt or reclaim).
	PreemptionVictims = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "pod_preemption_victims_total",
		Help: "Pods evicted to make room for others, by action",
	}, []string{"action"})
	// Queue shares as the proportion plugin computes them.
	QueueAllocatedMilliCPU = queueGauge("queue_allocated_milli_cpu", "Allocated CPU of the queue in milli-cores")
	QueueAllocatedMemory   = queueGauge("queue_allocated_memory_bytes", "Allocated memory of the queue in bytes")
	QueueDeservedMilliCPU  = queueGauge("queue_deserved_milli_cpu", "Deserved CPU of the queue in milli-cores")
	QueueDeservedMemory    = queueGauge("queue_deserved_memory_bytes", "Deserved memory of the queue in bytes")
	QueueShare             = queueGauge("queue_share", "Dominant share of the queue: allocated over deserved")
	// ConfigReloads counts attempts to reload the policy (configuration
	// and modules) after a change, by result: "succeeded" or "failed".
	ConfigReloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "config_reloads_total",
		Help: "Reloads of the scheduler configuration and plugin modules, by result",
	}, []string{"result"})
	// PluginReloads counts new versions of a plugin's module taken into
	// service ("succeeded") or refused ("failed"), by plugin.
	PluginReloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "plugin_reloads_total",
		Help: "New versions of a plugin module taken into service or refused, by plugin and result",
	}, []string{"plugin", "result"})
	// PluginModule is 1 for the module serving each Wasm plugin, labelled
	// with its sha256; a replaced module's series is removed.
	PluginModule = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace, Name: "plugin_module_info",
		Help: "The module serving each Wasm plugin (value 1), by plugin and sha256",
	}, []string{"plugin", "sha256"})
	// ModulePulls counts the modules tier entries name by wasm.image, by
	// plugin and by where they came from: "registry" (something was
	// fetched), "cache" (all of it was on disk) or "failed".
	ModulePulls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "module_pulls_total",
		Help: "Modules named by wasm.image, by plugin and by result: registry, cache or failed",
	}, []string{"plugin", "result"})
	// ReloadLatency is the time from the first change seen in a watched
	// directory to the new policy being published for the next session.
	ReloadLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "reload_latency_milliseconds",
		Help:    "Time from a change in the configuration directory to the new policy serving, in milliseconds",
		Buckets: prometheus.ExponentialBuckets(5, 2, 15),
	})
)

func queueGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, []string{"queue_name"})
}

// All lists every collector, for registration.
func All() []prometheus.Collector {
	return []prometheus.Collector{
		E2ESchedulingLatency, ActionLatency, PluginLatency, PluginCalls, PluginCallDuration, PluginCallFailures,
		ScheduleAttempts, BindFailures, PreemptionVictims,
		QueueAllocatedMilliCPU, QueueAllocatedMemory, QueueDeservedMilliCPU, QueueDeservedMemory, QueueShare,
		ConfigReloads, PluginReloads, PluginModule, ModulePulls, ReloadLatency,
		EventHandlerFailures, EventHandlerActions, CustomInformerErrors,
	}
}

// Register adds every collector to r.
func Register(r prometheus.Registerer) error {
	for _, c := range All() {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// SinceMicroseconds and SinceMilliseconds convert an elapsed time to the
// units the histograms use.
func SinceMicroseconds(start time.Time) float64 {
	return float64(time.Since(start).Nanoseconds()) / 1e3
}

func SinceMilliseconds(start time.Time) float64 {
	return float64(time.Since(start).Nanoseconds()) / 1e6
}

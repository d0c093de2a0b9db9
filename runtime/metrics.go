package runtime

import "github.com/prometheus/client_golang/prometheus"

// ViewObjectsSent counts the view objects (nodes, queues, jobs, tasks) at
// each session open, by kind: "full" sent in whole lists, "delta" resent
// in a delta because they changed, "unchanged" left out of a delta because
// the guest already holds them. Together they say what the view costs and
// what deltas save.
var ViewObjectsSent = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "caldera_wasm_view_objects_sent_total",
	Help: "View objects at Wasm plugins' session opens, by plugin and kind: full (whole lists), delta (changed, resent), unchanged (left out).",
}, []string{"plugin", "kind"})

// instancesOpen reports LiveInstances, so that a leak shows on /metrics.
var instancesOpen = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
	Name: "caldera_wasm_instances",
	Help: "Wasm module instances open in the process, idle in a pool or leased to a session, across every plugin and event handler.",
}, func() float64 { return float64(LiveInstances()) })

// Collectors returns the runtime's metrics; they are in prometheus's
// default registry from package init.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{ViewObjectsSent, instancesOpen}
}

func init() { prometheus.MustRegister(Collectors()...) }

package benchmarks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// callTotals are, at one moment, caldera_plugin_call_duration_seconds's
// count and sum per plugin and hook, and caldera_wasm_view_objects_sent_total
// summed over plugins, per kind.
type callTotals struct {
	calls map[string]callTotal
	view  map[string]float64
}

type callTotal struct {
	count uint64
	sum   float64
}

// GatherCalls reads both metrics. They are never reset: a plugin looks its
// collectors up once, at load, and a reset would detach them from the
// vectors.
func GatherCalls() callTotals {
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.PluginCallDuration, runtime.ViewObjectsSent)
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	totals := callTotals{calls: map[string]callTotal{}, view: map[string]float64{}}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if c := m.GetCounter(); c != nil {
				for _, l := range m.GetLabel() {
					if l.GetName() == "kind" {
						totals.view[l.GetValue()] += c.GetValue()
					}
				}
				continue
			}
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetValue())
			}
			h := m.GetHistogram()
			totals.calls[strings.Join(labels, " ")] = callTotal{h.GetSampleCount(), h.GetSampleSum()}
		}
	}
	return totals
}

// CallTimes summarises the calls made since before was gathered, one line
// per plugin and hook, the costliest first: where a session with Wasm or
// extender plugins spends its time.
func CallTimes(before callTotals, sessions int) string {
	type row struct {
		name string
		callTotal
	}
	n := max(sessions, 1)
	now := GatherCalls()
	var view []string
	for kind, v := range now.view {
		view = append(view, fmt.Sprintf("%s %.0f", kind, (v-before.view[kind])/float64(n)))
	}
	sort.Strings(view)
	var rows []row
	for name, t := range now.calls {
		if b := before.calls[name]; t.count > b.count {
			rows = append(rows, row{name, callTotal{t.count - b.count, t.sum - b.sum}})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].sum > rows[j].sum })
	var b strings.Builder
	fmt.Fprintf(&b, "view objects sent per session, all plugins: %s\n", strings.Join(view, ", "))
	fmt.Fprintf(&b, "%-45s %10s %12s %12s\n", "plugin hook", "calls/ssn", "s/session", "µs/call")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-45s %10d %12.3f %12.1f\n", r.name, r.count/uint64(n), r.sum/float64(n), r.sum/float64(r.count)*1e6)
	}
	return b.String()
}

package benchmarks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// callTotals are caldera_plugin_call_duration_seconds's count and sum per
// plugin and hook at one moment.
type callTotals map[string]callTotal

type callTotal struct {
	count uint64
	sum   float64
}

// GatherCalls reads caldera_plugin_call_duration_seconds and, as count
// and sum of "view <kind>", caldera_wasm_view_objects_sent_total. The
// metrics are never reset: a plugin looks its collectors up once, at load,
// and a reset would detach them from the vector.
func GatherCalls() callTotals {
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.PluginCallDuration, runtime.ViewObjectsSent)
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	totals := callTotals{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetValue())
			}
			if c := m.GetCounter(); c != nil {
				// The view objects, summed over plugins, by kind (labels sort
				// by name: kind, plugin).
				t := totals["view "+labels[0]]
				totals["view "+labels[0]] = callTotal{t.count + uint64(c.GetValue()), 0}
				continue
			}
			h := m.GetHistogram()
			totals[strings.Join(labels, " ")] = callTotal{h.GetSampleCount(), h.GetSampleSum()}
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
	var rows []row
	var view []string
	for name, t := range GatherCalls() {
		b := before[name]
		if kind, ok := strings.CutPrefix(name, "view "); ok {
			view = append(view, fmt.Sprintf("%s %d", kind, (t.count-b.count)/uint64(max(sessions, 1))))
			continue
		}
		if t.count > b.count {
			rows = append(rows, row{name, callTotal{t.count - b.count, t.sum - b.sum}})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].sum > rows[j].sum })
	n := max(sessions, 1)
	sort.Strings(view)
	var b strings.Builder
	fmt.Fprintf(&b, "view objects sent per session, all plugins: %s\n", strings.Join(view, ", "))
	fmt.Fprintf(&b, "%-45s %10s %12s %12s\n", "plugin hook", "calls/ssn", "s/session", "µs/call")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-45s %10d %12.3f %12.1f\n", r.name, r.count/uint64(n), r.sum/float64(n), r.sum/float64(r.count)*1e6)
	}
	return b.String()
}

package benchmarks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// CallTimes summarises caldera_plugin_call_duration_seconds since its last
// reset, one line per plugin and hook, the costliest first: where a
// session with Wasm or extender plugins spends its time. It resets the
// metric, so that each benchmark case reports its own calls.
func CallTimes(sessions int) string {
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.PluginCallDuration)
	families, err := reg.Gather()
	metrics.PluginCallDuration.Reset()
	if err != nil {
		return err.Error()
	}
	type row struct {
		name  string
		count uint64
		sum   float64
	}
	var rows []row
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetValue())
			}
			h := m.GetHistogram()
			rows = append(rows, row{strings.Join(labels, " "), h.GetSampleCount(), h.GetSampleSum()})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].sum > rows[j].sum })
	var b strings.Builder
	fmt.Fprintf(&b, "%-45s %10s %12s %12s\n", "plugin hook", "calls/ssn", "s/session", "µs/call")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-45s %10d %12.3f %12.1f\n", r.name, r.count/uint64(max(sessions, 1)), r.sum/float64(max(sessions, 1)), r.sum/float64(r.count)*1e6)
	}
	return b.String()
}

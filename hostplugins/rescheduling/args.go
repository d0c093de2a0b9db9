package rescheduling

import (
	"fmt"
	"time"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument keys, as Volcano names them.
const (
	IntervalKey      = "interval"
	MetricsPeriodKey = "metricsPeriod"
	StrategiesKey    = "strategies"
)

// LowNodeUtilization is the one strategy Volcano v1.15 registers.
const LowNodeUtilization = "lowNodeUtilization"

// Volcano's defaults.
const (
	defaultInterval      = 5 * time.Minute
	defaultMetricsPeriod = "5m"
)

// args are the plugin's parsed arguments.
type args struct {
	interval time.Duration
	// metricsPeriod names the usage average the strategy reads.
	metricsPeriod string
	lnu           lnuConfig
}

// lnuConfig is lowNodeUtilization's thresholds in percent: a node under
// every low threshold takes pods, a node over a target threshold gives
// them up.
type lnuConfig struct {
	low, target utilization
}

// utilization is a node's CPU and memory use, in percent.
type utilization struct{ cpu, memory float64 }

// Parameters of lowNodeUtilization that Volcano v1.15 declares but never
// reads: they are accepted, with a warning, so that configurations written
// for Volcano load, and change nothing, as there.
var unreadParams = []string{"thresholdPriorityClassName", "thresholdPriority", "nodeFit", "numberOfNodes"}

func parseArgs(a framework.Arguments) (args, error) {
	out := args{
		interval:      defaultInterval,
		metricsPeriod: defaultMetricsPeriod,
		lnu:           lnuConfig{low: utilization{100, 100}, target: utilization{100, 100}},
	}
	if err := a.Duration(IntervalKey, &out.interval); err != nil {
		return out, err
	}
	if err := a.String(MetricsPeriodKey, &out.metricsPeriod); err != nil {
		return out, err
	}
	if out.metricsPeriod == "" {
		out.metricsPeriod = defaultMetricsPeriod
	}
	if err := parseStrategies(a[StrategiesKey], &out.lnu); err != nil {
		return out, err
	}
	return out, a.RejectUnknown(IntervalKey, MetricsPeriodKey, StrategiesKey)
}

// parseStrategies reads the strategy list; no list, or an empty one, keeps
// lowNodeUtilization with its defaults, as in Volcano.
func parseStrategies(v any, lnu *lnuConfig) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("argument %q: expected a list of {name, params}, got %T", StrategiesKey, v)
	}
	for i, item := range list {
		s, ok := framework.AsArguments(item)
		if !ok {
			return fmt.Errorf("argument %q[%d]: expected {name, params}, got %T", StrategiesKey, i, item)
		}
		var name string
		if err := s.String("name", &name); err != nil {
			return fmt.Errorf("argument %q[%d]: %w", StrategiesKey, i, err)
		}
		if name != LowNodeUtilization {
			return fmt.Errorf("argument %q[%d]: strategy %q is not one Volcano registers: expected %q", StrategiesKey, i, name, LowNodeUtilization)
		}
		if err := s.RejectUnknown("name", "params"); err != nil {
			return fmt.Errorf("argument %q[%d]: %w", StrategiesKey, i, err)
		}
		params, ok := framework.AsArguments(s["params"])
		if s["params"] != nil && !ok {
			return fmt.Errorf("argument %q[%d].params: expected a map, got %T", StrategiesKey, i, s["params"])
		}
		if err := parseLNU(params, lnu); err != nil {
			return fmt.Errorf("argument %q[%d].params: %w", StrategiesKey, i, err)
		}
	}
	return nil
}

func parseLNU(p framework.Arguments, lnu *lnuConfig) error {
	if err := parseThresholds(p, "thresholds", &lnu.low); err != nil {
		return err
	}
	if err := parseThresholds(p, "targetThresholds", &lnu.target); err != nil {
		return err
	}
	for _, key := range unreadParams {
		if _, ok := p[key]; ok {
			logonce.Warning(Name, fmt.Sprintf("lowNodeUtilization: %s is not read by Volcano v1.15's strategy, nor by Caldera's; it has no effect", key))
		}
	}
	return p.RejectUnknown(append([]string{"thresholds", "targetThresholds"}, unreadParams...)...)
}

// parseThresholds reads whole percentages of cpu and memory. Volcano's
// strategy measures only those two; a pods threshold ("pods" or "pod") is
// accepted and has no effect there or here, with a warning.
func parseThresholds(p framework.Arguments, key string, into *utilization) error {
	v, ok := p[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := framework.AsArguments(v)
	if !ok {
		return fmt.Errorf("%s: expected a map of cpu and memory percentages, got %T", key, v)
	}
	for name, dst := range map[string]*float64{"cpu": &into.cpu, "memory": &into.memory} {
		n := int(*dst)
		if err := m.Int(name, &n); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*dst = float64(n)
	}
	for _, pods := range []string{"pods", "pod"} {
		if _, ok := m[pods]; ok {
			logonce.Warning(Name, fmt.Sprintf("lowNodeUtilization: %s.%s has no effect: the strategy measures CPU and memory only, as Volcano v1.15's", key, pods))
		}
	}
	if err := m.RejectUnknown("cpu", "memory", "pods", "pod"); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

package reload

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Outcome is what one reload did.
type Outcome struct {
	// Err is why the new files were refused; the policy in service keeps
	// serving. Nil with no Changes: nothing that matters changed.
	Err error
	// File and Plugin name what was at fault, when known: the module's
	// file and its plugin, or the configuration file.
	File, Plugin string
	// Changes lists what the published policy changed.
	Changes []Change
	// Took is the time to read, check and publish.
	Took time.Duration
	// Superseded is set when the files changed while they were checked,
	// or failed at the watch's first look: the failure is not reported,
	// and the files are checked again.
	Superseded bool
}

// Change is one difference between two published policies.
type Change struct {
	// Plugin is the plugin whose module changed, was added or was removed
	// from the configuration; empty for the configuration file itself.
	Plugin string
	File   string
	// OldSHA256 is empty for an added plugin, NewSHA256 for a removed one.
	OldSHA256, NewSHA256 string
	// LoadTime is the time to compile, instantiate and self-test the new
	// module.
	LoadTime time.Duration
}

func (c Change) String() string {
	switch {
	case c.Plugin == "":
		return "configuration " + c.File
	case c.OldSHA256 == "":
		return fmt.Sprintf("plugin %s added (sha256 %s)", c.Plugin, short(c.NewSHA256))
	case c.NewSHA256 == "":
		return fmt.Sprintf("plugin %s removed (sha256 %s)", c.Plugin, short(c.OldSHA256))
	default:
		return fmt.Sprintf("plugin %s sha256 %s -> %s", c.Plugin, short(c.OldSHA256), short(c.NewSHA256))
	}
}

// String summarizes the outcome in a sentence, for Events.
func (o Outcome) String() string {
	if o.Err != nil {
		return fmt.Sprintf("refused %s, the previous version keeps serving: %v", o.File, o.Err)
	}
	parts := make([]string, len(o.Changes))
	for i, c := range o.Changes {
		parts[i] = c.String()
	}
	return "now serving: " + strings.Join(parts, "; ")
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// record logs and counts an outcome and hands it to Options.Report.
func (r *Reloader) record(out Outcome, since time.Time) {
	switch {
	case out.Err != nil:
		klog.ErrorS(out.Err, "Reload refused; the previous version keeps serving", "file", out.File, "plugin", out.Plugin, "willRetry", r.retry)
		metrics.ConfigReloads.WithLabelValues("failed").Inc()
		if out.Plugin != "" {
			metrics.PluginReloads.WithLabelValues(out.Plugin, "failed").Inc()
		}
	case len(out.Changes) == 0:
		return
	default:
		for _, c := range out.Changes {
			if c.Plugin != "" && c.NewSHA256 != "" {
				metrics.PluginReloads.WithLabelValues(c.Plugin, "succeeded").Inc()
			}
		}
		latency := time.Since(since)
		klog.InfoS("New policy in service from the next session", "changes", len(out.Changes), "took", out.Took, "sinceChange", latency)
		metrics.ConfigReloads.WithLabelValues("succeeded").Inc()
		metrics.ReloadLatency.Observe(float64(latency.Nanoseconds()) / 1e6)
	}
	if r.opts.Report != nil {
		r.opts.Report(out)
	}
}

// logChanges says what a new policy changes, one line per change.
func logChanges(changes []Change) {
	for _, c := range changes {
		switch {
		case c.Plugin == "":
			klog.InfoS("Reloaded the scheduler configuration", "file", c.File)
		case c.NewSHA256 == "":
			klog.InfoS("Removed Wasm plugin from the policy; its module is unloaded after the last session using it",
				"plugin", c.Plugin, "file", c.File, "oldSHA256", c.OldSHA256)
		default:
			klog.InfoS("Reloaded Wasm plugin", "plugin", c.Plugin, "file", c.File,
				"oldSHA256", c.OldSHA256, "newSHA256", c.NewSHA256, "loadTime", c.LoadTime)
		}
	}
}

// setModuleGauge moves plugin's active-module series from one digest to
// another; an empty digest means none.
func setModuleGauge(plugin, from, to string) {
	if from != "" && from != to {
		metrics.PluginModule.DeleteLabelValues(plugin, from)
	}
	if to != "" {
		metrics.PluginModule.WithLabelValues(plugin, to).Set(1)
	}
}

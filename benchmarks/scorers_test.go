package benchmarks

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/examples/extender/handler"
	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// One policy, binpack's node score with its default weights, in four
// implementations: the native plugin, its Wasm ports (TinyGo and the Go
// toolchain, built by make plugins) and the example HTTP extender
// (examples/extender) answering prioritize on loopback.
var scorers = []string{"binpack", "binpack.tinygo", "binpack.go", "extender"}

// scorer returns a registry that serves impl and the tier entry naming it.
// The extender runs in this process behind a loopback TCP listener, so its
// cost is a lower bound: a real one adds a network hop and, as often as not,
// a decoder that reads every field.
func scorer(b *testing.B, impl string, extenderVerbs ...string) (framework.Registry, string) {
	b.Helper()
	plugins := hostplugins.Registry()
	switch impl {
	case "binpack":
		return plugins, "  - {name: binpack}\n"
	case "extender":
		srv := httptest.NewServer(handler.New(handler.Options{}))
		b.Cleanup(srv.Close)
		entry := fmt.Sprintf("  - name: extender\n    arguments:\n      extender.urlPrefix: %s\n"+
			// Measured, not bounded: see docs/performance.md.
			"      extender.httpTimeout: 1m\n", srv.URL)
		if len(extenderVerbs) == 0 {
			extenderVerbs = []string{"prioritizeVerb: prioritize"}
		}
		for _, v := range extenderVerbs {
			entry += "      extender." + v + "\n"
		}
		return plugins, entry
	}
	path := "../build/plugins/" + impl + ".wasm"
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s is not built (make plugins)", path)
	}
	limits := runtime.DefaultLimits()
	limits.CallTimeout = time.Minute // measured, not bounded, as in BenchmarkSessionBinpack
	p, err := runtime.Load(context.Background(), path, runtime.Options{Name: impl, Limits: limits})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close(context.Background()) })
	plugins[impl] = runtime.Factory(impl, p, runtime.Policy{})
	return plugins, fmt.Sprintf("  - {name: %s}\n", impl)
}

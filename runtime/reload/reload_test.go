package reload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestBrokenConfigurationKeepsServing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scheduler.yaml")
	writeFile(t, path, []byte(confNaming()))
	r := newTestReloader(t, dir, nil)
	before := r.Policies().Current()

	writeFile(t, path, []byte("actions: \"enqueue, allocate\"\ntiers:\n- plugins: [{name: nosuchplugin}]\n"))
	out := r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), path) || !strings.Contains(out.Err.Error(), "nosuchplugin") {
		t.Fatalf("reload of a configuration naming an unknown plugin: %v; want an error naming %s and the plugin", out.Err, path)
	}
	if r.Policies().Current() != before {
		t.Fatal("a broken configuration replaced the one in service")
	}
	// The same broken file is not tried (nor reported) again.
	if again := r.Reload(context.Background()); again.Err != nil || len(again.Changes) > 0 {
		t.Fatalf("second look at the same files: %+v, want nothing", again)
	}

	writeFile(t, path, []byte(strings.Replace(confNaming(), "enqueue, allocate", "enqueue, allocate, backfill", 1)))
	out = r.Reload(context.Background())
	if out.Err != nil || len(out.Changes) != 1 || out.Changes[0].Plugin != "" {
		t.Fatalf("reload of a fixed configuration: %+v, want one configuration change", out)
	}
	if got := r.Policies().Current().Config.Actions; len(got) != 3 {
		t.Fatalf("actions in service %q, want the fixed file's three", got)
	}
}

func TestModuleNamedLikeNativePluginIsRefused(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte(confNaming()))
	writeFile(t, filepath.Join(dir, "binpack.wasm"), []byte("\x00asm"))
	_, err := New(context.Background(), Options{ConfigPath: filepath.Join(dir, "scheduler.yaml"), PluginDir: dir, Native: nativeRegistry, Actions: actionRegistry()})
	if err == nil || !strings.Contains(err.Error(), "binpack.wasm: rename the file") {
		t.Fatalf("New with binpack.wasm beside the native binpack: %v", err)
	}
}

func TestBrokenModuleIsRefusedAndFixIsPickedUp(t *testing.T) {
	binpack, draining := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "draining.tinygo")
	dir := t.TempDir()
	module := filepath.Join(dir, "policy.wasm")
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte(confNaming("policy")))
	writeFile(t, module, binpack)
	var reports []Outcome
	r := newTestReloader(t, dir, func(o Outcome) { reports = append(reports, o) })
	if got := serving(r, "policy"); got != digest(binpack) {
		t.Fatalf("serving %s, want binpack's %s", got, digest(binpack))
	}
	failed := testutil.ToFloat64(metrics.PluginReloads.WithLabelValues("policy", "failed"))

	for _, broken := range []struct{ name, want string }{
		{"not Wasm", "not a valid Wasm module"},
		{"truncated", "not a valid Wasm module"},
	} {
		data := []byte("#!/bin/sh\necho policy\n")
		if broken.name == "truncated" {
			data = draining[:len(draining)/2]
		}
		writeFile(t, module, data)
		out := r.Reload(context.Background())
		if out.Err == nil || !strings.Contains(out.Err.Error(), module) || !strings.Contains(out.Err.Error(), broken.want) {
			t.Fatalf("%s: reload error %v, want one naming %s and saying %q", broken.name, out.Err, module, broken.want)
		}
		if out.Plugin != "policy" || out.File != module {
			t.Errorf("%s: fault on plugin %q file %q, want policy and %s", broken.name, out.Plugin, out.File, module)
		}
		if got := serving(r, "policy"); got != digest(binpack) {
			t.Fatalf("%s: serving %s after a refused module, want binpack's %s", broken.name, got, digest(binpack))
		}
	}
	if got := testutil.ToFloat64(metrics.PluginReloads.WithLabelValues("policy", "failed")) - failed; got != 2 {
		t.Errorf("caldera_plugin_reloads_total{plugin=policy,result=failed} grew by %v, want 2", got)
	}
	if got := r.LiveModules(); got != 1 {
		t.Errorf("%d modules open after two refused ones, want 1", got)
	}

	writeFile(t, module, draining)
	out := r.Reload(context.Background())
	if out.Err != nil || len(out.Changes) != 1 {
		t.Fatalf("reload of a working module: %+v", out)
	}
	c := out.Changes[0]
	if c.Plugin != "policy" || c.OldSHA256 != digest(binpack) || c.NewSHA256 != digest(draining) || c.LoadTime <= 0 {
		t.Errorf("change %+v, want policy from binpack's to draining's digest with a load time", c)
	}
	if got := serving(r, "policy"); got != digest(draining) {
		t.Fatalf("serving %s, want draining's %s", got, digest(draining))
	}
	if got := testutil.ToFloat64(metrics.PluginModule.WithLabelValues("policy", digest(draining))); got != 1 {
		t.Errorf("caldera_plugin_module_info for the new digest is %v, want 1", got)
	}
	if got := r.LiveModules(); got != 1 {
		t.Errorf("%d modules open, want 1: no session holds the replaced one", got)
	}
	if len(reports) != 3 || reports[0].Err == nil || reports[2].Err != nil {
		t.Errorf("reports %+v, want two failures and a success", reports)
	}
}

func TestPinnedDigestRefusesAnotherModule(t *testing.T) {
	binpack, draining := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "draining.tinygo")
	dir := t.TempDir()
	module := filepath.Join(dir, "policy.wasm")
	conf := strings.Replace(confNaming("policy"), "{name: policy}",
		fmt.Sprintf("{name: policy, arguments: {wasm.sha256: %s}}", digest(binpack)), 1)
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte(conf))
	writeFile(t, module, binpack)
	r := newTestReloader(t, dir, nil)

	writeFile(t, module, draining)
	out := r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), "pins sha256:"+digest(binpack)) || !strings.Contains(out.Err.Error(), module) {
		t.Fatalf("reload of an unpinned module: %v, want the pin named", out.Err)
	}
	if got := serving(r, "policy"); got != digest(binpack) {
		t.Fatalf("serving %s, want the pinned %s", got, digest(binpack))
	}
}

func TestRemovedModuleKeepsLastGoodUntilUnnamed(t *testing.T) {
	binpack := moduleBytes(t, "binpack.tinygo")
	dir := t.TempDir()
	module, conf := filepath.Join(dir, "policy.wasm"), filepath.Join(dir, "scheduler.yaml")
	writeFile(t, conf, []byte(confNaming("policy")))
	writeFile(t, module, binpack)
	r := newTestReloader(t, dir, nil)

	if err := os.Remove(module); err != nil {
		t.Fatal(err)
	}
	if out := r.Reload(context.Background()); out.Err != nil || len(out.Changes) != 0 {
		t.Fatalf("reload after removing a named module: %+v, want the last good version kept", out)
	}
	if got := serving(r, "policy"); got != digest(binpack) {
		t.Fatalf("serving %q after the file went, want the last good %s", got, digest(binpack))
	}

	// A session is running with the module when the configuration stops
	// naming it: the module stays open until that session ends.
	session := r.Policies().Acquire()
	writeFile(t, conf, []byte(confNaming()))
	out := r.Reload(context.Background())
	if out.Err != nil || len(out.Changes) != 2 || out.Changes[1].NewSHA256 != "" {
		t.Fatalf("reload of a configuration without the plugin: %+v, want the configuration changed and policy removed", out)
	}
	if got := r.LiveModules(); got != 1 {
		t.Fatalf("%d modules open while a session still uses the removed one, want 1", got)
	}
	session.Release()
	if got := r.LiveModules(); got != 0 {
		t.Fatalf("%d modules open after the last session using the removed one ended, want 0", got)
	}
}

// TestWatchFollowsConfigMapUpdates lays the directory out as a Kubernetes
// ConfigMap volume (keys are links through ..data to a timestamped
// folder) and updates it the way the kubelet does: a new folder, a new
// ..data link renamed over the old one, the old folder removed.
func TestWatchFollowsConfigMapUpdates(t *testing.T) {
	binpack, draining := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "draining.tinygo")
	dir := t.TempDir()
	cm := reloadtest.NewConfigMapVolume(t, dir)
	cm.Update(map[string][]byte{"scheduler.yaml": []byte(confNaming("policy")), "policy.wasm": binpack})
	var mu sync.Mutex
	var failures []error
	r := newTestReloader(t, dir, func(o Outcome) {
		if o.Err != nil {
			mu.Lock()
			failures = append(failures, o.Err)
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if err := r.Watch(ctx); err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(100 * time.Millisecond) // let the watch start

	cm.Update(map[string][]byte{"scheduler.yaml": []byte(confNaming("policy")), "policy.wasm": draining})
	eventually(t, 10*time.Second, "draining's module serving after the ConfigMap update", func() bool {
		return serving(r, "policy") == digest(draining)
	})
	cm.Update(map[string][]byte{"scheduler.yaml": []byte(confNaming("policy")), "policy.wasm": []byte("garbage")})
	eventually(t, 10*time.Second, "a failure reported for the broken module", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(failures) == 1
	})
	if got := serving(r, "policy"); got != digest(draining) {
		t.Fatalf("serving %s after a broken update, want draining's %s", got, digest(draining))
	}
	mu.Lock()
	if !strings.Contains(failures[0].Error(), filepath.Join(dir, "policy.wasm")) {
		t.Errorf("failure %v does not name the module file", failures[0])
	}
	mu.Unlock()
}

// TestWatchWaitsForSlowWrites: a module written in pieces, and a
// configuration saved by rename, are read once complete; nothing is
// reported about the half-written state, whether the pieces come faster
// than the watch's first look (20 ms) or slower, within the debounce.
func TestWatchWaitsForSlowWrites(t *testing.T) {
	for _, gap := range []time.Duration{10 * time.Millisecond, 30 * time.Millisecond} {
		t.Run(gap.String(), func(t *testing.T) { testSlowWrites(t, gap) })
	}
}

func testSlowWrites(t *testing.T, gap time.Duration) {
	binpack, draining := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "draining.tinygo")
	dir := t.TempDir()
	module, conf := filepath.Join(dir, "policy.wasm"), filepath.Join(dir, "scheduler.yaml")
	writeFile(t, conf, []byte(confNaming("policy")))
	writeFile(t, module, binpack)
	var mu sync.Mutex
	var reports []Outcome
	r := newTestReloader(t, dir, func(o Outcome) {
		mu.Lock()
		reports = append(reports, o)
		mu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = r.Watch(ctx) }()
	time.Sleep(100 * time.Millisecond)

	f, err := os.Create(module)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(draining); i += len(draining) / 8 {
		if _, err := f.Write(draining[i:min(i+len(draining)/8, len(draining))]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(gap) // under the 50 ms debounce
	}
	f.Close()
	eventually(t, 10*time.Second, "draining's module serving", func() bool { return serving(r, "policy") == digest(draining) })

	reloadtest.RenameInto(t, conf, []byte(strings.Replace(confNaming("policy"), "enqueue, allocate", "enqueue, allocate, backfill", 1)))
	eventually(t, 10*time.Second, "the renamed configuration in service", func() bool {
		return len(r.Policies().Current().Config.Actions) == 3
	})
	mu.Lock()
	defer mu.Unlock()
	for _, o := range reports {
		if o.Err != nil {
			t.Errorf("reported failure %v; the files were only ever complete when quiet", o.Err)
		}
	}
	// Two reloads (module, then configuration), or one when the rename
	// lands while a loaded machine is still checking the module.
	if len(reports) < 1 || len(reports) > 2 {
		t.Errorf("%d reloads reported, want 1 or 2 (module, configuration): %+v", len(reports), reports)
	}
}

// A configuration written in place in two pieces, the pause longer than
// the watch's first look but shorter than the debounce: its first piece
// parses (the first tier alone) but is never put in service, since an
// edited configuration is read only once the debounce has passed.
func TestEditedConfigurationWaitsForTheDebounce(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "scheduler.yaml")
	writeFile(t, conf, []byte(confNaming()))
	var mu sync.Mutex
	published := 0 // policies put in service
	r := newTestReloader(t, dir, func(o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		if o.Err == nil && len(o.Changes) > 0 {
			published++
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = r.Watch(ctx) }()
	time.Sleep(100 * time.Millisecond)

	full := strings.Replace(confNaming(), "enqueue, allocate", "enqueue, allocate, backfill", 1)
	cut := strings.Index(full, "- plugins: [{name: predicates}")
	f, err := os.OpenFile(conf, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(full[:cut]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Millisecond) // past the 20 ms first look, within the 50 ms debounce
	for time.Now().Before(deadline) {
		if tiers := len(r.Policies().Current().Config.Tiers); tiers != 2 {
			t.Fatalf("a policy of %d tiers in service while the file was half written", tiers)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := f.WriteString(full[cut:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	eventually(t, 10*time.Second, "the edited configuration in service", func() bool {
		c := r.Policies().Current().Config
		return len(c.Actions) == 3 && len(c.Tiers) == 2
	})
	mu.Lock()
	defer mu.Unlock()
	if published != 1 {
		t.Errorf("%d policies published, want 1: the whole file", published)
	}
}

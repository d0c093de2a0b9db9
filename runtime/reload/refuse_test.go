package reload

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// rawABIModule builds runtime/testdata/guests/rawabi, a module that speaks
// the ABI by hand, with the Go toolchain and the given -ldflags.
func rawABIModule(t *testing.T, ldflags string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rawabi.wasm")
	args := []string{"build", "-buildmode=c-shared", "-o", out}
	if ldflags != "" {
		args = append(args, "-ldflags", ldflags)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = filepath.Join("..", "testdata", "guests", "rawabi")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building rawabi with %q: %v\n%s", ldflags, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A module that is valid Wasm but fails a check of its own (a future ABI
// major version, no hook this scheduler would call) is refused with its
// file and the cause named, the module in service keeps serving, and the
// refused module, once loaded, is closed again.
func TestModuleFailingItsChecksIsRefusedAndClosed(t *testing.T) {
	binpack := moduleBytes(t, "binpack.tinygo")
	dir := t.TempDir()
	module := filepath.Join(dir, "policy.wasm")
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte(confNaming("policy")))
	writeFile(t, module, binpack)
	r := newTestReloader(t, dir, nil)
	before := r.Policies().Current()
	failed := testutil.ToFloat64(metrics.PluginReloads.WithLabelValues("policy", "failed"))

	for _, tc := range []struct{ name, ldflags, want string }{
		{"a future ABI major version", "-X main.abiMajor=2", "ABI 2.0"},
		{"no hook to call", "-X main.hooks=session_open,session_close", "declares no hook this scheduler calls"},
		{"no session_open", "-X main.hooks=predicate_batch", "does not declare session_open"},
	} {
		writeFile(t, module, rawABIModule(t, tc.ldflags))
		out := r.Reload(context.Background())
		if out.Err == nil || !strings.Contains(out.Err.Error(), module) || !strings.Contains(out.Err.Error(), tc.want) {
			t.Fatalf("%s: reload error %v, want one naming %s and saying %q", tc.name, out.Err, module, tc.want)
		}
		if out.Plugin != "policy" || out.File != module {
			t.Errorf("%s: fault on plugin %q file %q, want policy and %s", tc.name, out.Plugin, out.File, module)
		}
		if r.Policies().Current() != before {
			t.Fatalf("%s: the refused module replaced the policy in service", tc.name)
		}
		if got := r.LiveModules(); got != 1 {
			t.Errorf("%s: %d modules open after the refusal, want 1 (the one in service)", tc.name, got)
		}
	}
	if got := testutil.ToFloat64(metrics.PluginReloads.WithLabelValues("policy", "failed")) - failed; got != 3 {
		t.Errorf("caldera_plugin_reloads_total{plugin=policy,result=failed} grew by %v, want 3", got)
	}
}

// New arguments for a Wasm plugin are tried before they serve: the module
// in service only ever ran with its own, so a fresh instance of it is
// self-tested with the new ones, and arguments it refuses keep the whole
// previous policy serving. Without its file, the module cannot be tried
// with new arguments at all.
func TestNewArgumentsAreTriedBeforeTheyServe(t *testing.T) {
	binpack := moduleBytes(t, "binpack.tinygo")
	dir := t.TempDir()
	conf, module := filepath.Join(dir, "scheduler.yaml"), filepath.Join(dir, "policy.wasm")
	weight := func(w string) []byte {
		return []byte(strings.Replace(confNaming("policy"), "{name: policy}", "{name: policy, arguments: {binpack.weight: "+w+"}}", 1))
	}
	writeFile(t, conf, weight("10"))
	writeFile(t, module, binpack)
	r := newTestReloader(t, dir, nil)
	before := r.Policies().Current()
	calls := testutil.ToFloat64(metrics.PluginCalls.WithLabelValues("policy", "session_open"))

	writeFile(t, conf, weight("ten"))
	out := r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), "self-test") || !strings.Contains(out.Err.Error(), "binpack.weight") {
		t.Fatalf("reload with an argument the module refuses: %v, want the self-test's failure naming the argument", out.Err)
	}
	// The module is the one in service: the configuration's change is at
	// fault, and the refusal says so.
	if out.Plugin != "policy" || out.File != conf || !strings.Contains(out.Err.Error(), "the new arguments of plugin policy (its module "+module+" is unchanged)") {
		t.Errorf("fault on plugin %q file %q: %v; want policy, %s and the module named unchanged", out.Plugin, out.File, out.Err, conf)
	}
	if r.Policies().Current() != before {
		t.Fatal("a configuration whose arguments the module refuses replaced the one in service")
	}
	if got := r.LiveModules(); got != 1 {
		t.Errorf("%d modules open after the refusal, want 1", got)
	}
	// The self-test's calls are not the plugin's: they stay out of its
	// metrics.
	if got := testutil.ToFloat64(metrics.PluginCalls.WithLabelValues("policy", "session_open")) - calls; got != 0 {
		t.Errorf("caldera_plugin_calls_total{plugin=policy,hook=session_open} grew by %v during a self-test, want 0", got)
	}

	writeFile(t, conf, weight("5"))
	out = r.Reload(context.Background())
	if out.Err != nil {
		t.Fatalf("reload with a good argument: %v", out.Err)
	}
	var reloaded bool
	for _, c := range out.Changes {
		reloaded = reloaded || c.Plugin == "policy" && c.OldSHA256 == digest(binpack) && c.NewSHA256 == digest(binpack)
	}
	if !reloaded {
		t.Errorf("changes %+v, want policy reloaded (same digest) for its new arguments", out.Changes)
	}
	if got := r.LiveModules(); got != 1 {
		t.Errorf("%d modules open, want 1: no session holds the replaced instance", got)
	}

	serving := r.Policies().Current()
	if err := os.Remove(module); err != nil {
		t.Fatal(err)
	}
	writeFile(t, conf, weight("7"))
	out = r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), "is gone") {
		t.Fatalf("new arguments without the module's file: %v, want a refusal saying the file is gone", out.Err)
	}
	if r.Policies().Current() != serving {
		t.Fatal("new arguments took effect on a module that was never tried with them")
	}
}

// A refusal whose cause may not recur, a self-test call that missed its
// deadline, is tried once more at the next look at the same files; any
// other refusal waits for the files to change.
func TestTimedOutSelfTestIsTriedOnceMore(t *testing.T) {
	binpack := moduleBytes(t, "binpack.tinygo")
	dir := t.TempDir()
	module := filepath.Join(dir, "policy.wasm")
	conf := strings.Replace(confNaming("policy"), "{name: policy}", "{name: policy, arguments: {wasm.callTimeout: 100ms}}", 1)
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte(conf))
	writeFile(t, module, binpack)
	r := newTestReloader(t, dir, nil)

	writeFile(t, module, rawABIModule(t, "-X main.hooks=session_open,session_close,overused")) // overused never returns
	for i, want := range []string{"refused", "refused again", "left alone"} {
		out := r.Reload(context.Background())
		timedOut := out.Err != nil && strings.Contains(out.Err.Error(), "ETIMEOUT")
		if timedOut != (want != "left alone") || len(out.Changes) > 0 {
			t.Fatalf("look %d at a module whose self-test times out: %+v, want it %s", i+1, out, want)
		}
	}
	if got := serving(r, "policy"); got != digest(binpack) {
		t.Fatalf("serving %s, want binpack's %s", got, digest(binpack))
	}
}

// A ConfigMap volume's files are all read from the version its ..data link
// names, even when a key's own link already leads to another version (as
// when the kubelet swaps ..data between two reads): a snapshot never pairs
// one version's configuration with another's module.
func TestSnapshotReadsOneConfigMapVersion(t *testing.T) {
	dir := t.TempDir()
	for version, module := range map[string]string{"..v1": "module one", "..v2": "module two"} {
		if err := os.Mkdir(filepath.Join(dir, version), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, version, "scheduler.yaml"), []byte("conf of "+version))
		writeFile(t, filepath.Join(dir, version, "policy.wasm"), []byte(module))
	}
	for link, target := range map[string]string{"..data": "..v1", "scheduler.yaml": "..data/scheduler.yaml", "policy.wasm": "..v2/policy.wasm"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	r := &Reloader{opts: Options{ConfigPath: filepath.Join(dir, "scheduler.yaml"), PluginDir: dir}}
	snap := r.readSnapshot()
	if snap.err != nil {
		t.Fatal(snap.err)
	}
	f := snap.modules["policy"]
	if string(snap.config) != "conf of ..v1" || string(f.code) != "module one" {
		t.Errorf("read %q and %q, want both of ..v1", snap.config, f.code)
	}
	if f.path != filepath.Join(dir, "policy.wasm") {
		t.Errorf("module reported at %s, want its path in the volume, %s", f.path, filepath.Join(dir, "policy.wasm"))
	}
}

// The kubelet removes the previous ConfigMap version folder right after the
// swap: a read from it is recognised as made from a removed version (and
// readSnapshot then reads again), and a read after the swap takes the new
// version's files.
func TestSnapshotSeesARemovedVersion(t *testing.T) {
	dir := t.TempDir()
	cm := reloadtest.NewConfigMapVolume(t, dir)
	cm.Update(map[string][]byte{"scheduler.yaml": []byte("one"), "policy.wasm": []byte("module one")})
	old, err := filepath.EvalSymlinks(filepath.Join(dir, "..data"))
	if err != nil {
		t.Fatal(err)
	}
	cm.Update(map[string][]byte{"scheduler.yaml": []byte("two"), "policy.wasm": []byte("module two")})
	r := &Reloader{opts: Options{ConfigPath: filepath.Join(dir, "scheduler.yaml"), PluginDir: dir}}
	if !removedDuring(map[string]string{dir: old}) {
		t.Fatalf("the removed version %s is not seen as removed", old)
	}
	snap := r.readSnapshot()
	if snap.err != nil || string(snap.config) != "two" || string(snap.modules["policy"].code) != "module two" {
		t.Fatalf("snapshot %q, %q, %v; want version two's files", snap.config, snap.modules["policy"].code, snap.err)
	}
}

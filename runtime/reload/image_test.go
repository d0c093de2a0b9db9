package reload

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/runtime/ocimodule"
	"github.com/caldera-scheduler/caldera/runtime/ocimodule/ocitest"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// imageConf names plugin policy by wasm.image, with extra arguments.
func imageConf(image, extra string) []byte {
	return []byte(strings.Replace(confNaming("policy"), "{name: policy}", `{name: policy, arguments: {wasm.image: "`+image+`"`+extra+`}}`, 1))
}

// pushModule publishes code at repoTag of reg and returns it pinned.
func pushModule(t *testing.T, reg *ocitest.Registry, repoTag string, code []byte) string {
	t.Helper()
	pinned, _, err := ocimodule.Remote{PlainHTTP: true}.PushTo(context.Background(), reg.Host()+"/"+repoTag, code, ocimodule.Metadata{Name: "policy"})
	if err != nil {
		t.Fatal(err)
	}
	return pinned
}

// newImageReloader loads dir's configuration, pulling images through a
// plain-HTTP puller whose store is in cacheDir.
func newImageReloader(t *testing.T, dir, cacheDir string) *Reloader {
	t.Helper()
	return newTestReloader(t, dir, nil, func(o *Options) {
		o.Images = ocimodule.NewPuller(ocimodule.Remote{PlainHTTP: true}, ocimodule.NewStore(cacheDir))
	})
}

// A tier entry naming its module by image is pulled, self-tested and
// served; naming another digest swaps it; with the registry refusing
// service a new digest is refused while the module in service keeps
// serving, and a digest already pulled is served from the cache; a
// wasm.sha256 the image does not match is refused.
func TestImageEntriesPullSwapAndSurviveTheRegistry(t *testing.T) {
	tinygo, gobuild := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "binpack.go")
	reg := ocitest.New(t, false)
	first := pushModule(t, reg, "policies/binpack:tinygo", tinygo)
	second := pushModule(t, reg, "policies/binpack:go", gobuild)
	dir, cacheDir := t.TempDir(), t.TempDir()
	conf := filepath.Join(dir, "scheduler.yaml")
	writeFile(t, conf, imageConf(first, ""))
	r := newImageReloader(t, dir, cacheDir)
	if got, img := serving(r, "policy"), r.Policies().Current().Images["policy"]; got != contentDigest(tinygo) || img != first {
		t.Fatalf("serving %s from %q, want the TinyGo build %s from %s", got, img, contentDigest(tinygo), first)
	}

	writeFile(t, conf, imageConf(second, ""))
	out := r.Reload(context.Background())
	if out.Err != nil || serving(r, "policy") != contentDigest(gobuild) {
		t.Fatalf("after naming %s: %v, serving %s", second, out.Err, serving(r, "policy"))
	}
	if len(out.Changes) != 2 || out.Changes[1].File != second {
		t.Errorf("changes %v, want the configuration and plugin policy from %s", out.Changes, second)
	}

	// The registry refuses service: a digest never pulled is refused...
	third := pushModule(t, reg, "policies/binpack:again", append(append([]byte(nil), tinygo...), 0, 0)) // a custom section's worth of difference
	reg.Down.Store(true)
	failed := testutil.ToFloat64(metrics.ModulePulls.WithLabelValues("policy", "failed"))
	writeFile(t, conf, imageConf(third, ""))
	out = r.Reload(context.Background())
	if out.Err == nil || !ocimodule.Retryable(out.Err) || !strings.Contains(out.Err.Error(), "plugin policy: wasm.image: pulling "+third) {
		t.Fatalf("pulling from a registry refusing service: %v, want a retryable pull error naming %s", out.Err, third)
	}
	if serving(r, "policy") != contentDigest(gobuild) {
		t.Errorf("serving %s after a failed pull, want the module in service", serving(r, "policy"))
	}
	if got := testutil.ToFloat64(metrics.ModulePulls.WithLabelValues("policy", "failed")); got != failed+1 {
		t.Errorf("failed pulls counted %v, want %v", got, failed+1)
	}
	// ...and one pulled before comes from the cache.
	writeFile(t, conf, imageConf(first, ""))
	if out = r.Reload(context.Background()); out.Err != nil || serving(r, "policy") != contentDigest(tinygo) {
		t.Fatalf("naming %s again with the registry down: %v, serving %s", first, out.Err, serving(r, "policy"))
	}

	// A module that is not the one wasm.sha256 pins is refused.
	writeFile(t, conf, imageConf(second, ", wasm.sha256: "+contentDigest(tinygo)))
	out = r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), "module digest is sha256:"+contentDigest(gobuild)+", the configuration pins sha256:"+contentDigest(tinygo)) {
		t.Fatalf("a wasm.sha256 the image does not match: %v", out.Err)
	}
	if out.File != second || serving(r, "policy") != contentDigest(tinygo) {
		t.Errorf("refusal names %q and %s serves; want %s named and the TinyGo build serving", out.File, serving(r, "policy"), second)
	}
}

// An entry may not be both an image and a file, nor give a native plugin's
// name an image.
func TestImageEntriesThatCannotBe(t *testing.T) {
	tinygo := moduleBytes(t, "binpack.tinygo")
	reg := ocitest.New(t, false)
	pinned := pushModule(t, reg, "policies/binpack:v1", tinygo)
	dir := t.TempDir()
	conf := filepath.Join(dir, "scheduler.yaml")
	writeFile(t, conf, imageConf(pinned, ""))
	r := newImageReloader(t, dir, t.TempDir())

	writeFile(t, filepath.Join(dir, "policy.wasm"), tinygo)
	out := r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), `plugin "policy" is both wasm.image `+pinned+" and the file "+filepath.Join(dir, "policy.wasm")) {
		t.Errorf("an image and a file for one plugin: %v", out.Err)
	}
	writeFile(t, conf, []byte(strings.Replace(confNaming(), "{name: nodeorder}", "{name: nodeorder, arguments: {wasm.image: \""+pinned+"\"}}", 1)))
	out = r.Reload(context.Background())
	if out.Err == nil || !strings.Contains(out.Err.Error(), `plugin "nodeorder" is a native plugin; wasm.image `+pinned) {
		t.Errorf("an image for a native plugin: %v", out.Err)
	}
	if serving(r, "policy") != contentDigest(tinygo) {
		t.Errorf("serving %s, want the module pulled at start", serving(r, "policy"))
	}
}

// While Watch runs, a reload the registry failed is tried again with
// backoff, with no file event: the image is served once the registry
// answers.
func TestImagePullIsRetriedUntilTheRegistryAnswers(t *testing.T) {
	tinygo, gobuild := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "binpack.go")
	reg := ocitest.New(t, false)
	first := pushModule(t, reg, "policies/binpack:tinygo", tinygo)
	second := pushModule(t, reg, "policies/binpack:go", gobuild)
	dir := t.TempDir()
	conf := filepath.Join(dir, "scheduler.yaml")
	writeFile(t, conf, imageConf(first, ""))
	r := newImageReloader(t, dir, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Watch(ctx) }()
	defer func() { cancel(); <-done }()

	eventually(t, 10*time.Second, "Watch to start", func() bool {
		r.reloading.Lock()
		defer r.reloading.Unlock()
		return r.watchCtx != nil
	})
	reg.Down.Store(true)
	writeFile(t, conf, imageConf(second, ""))
	// Whether or not the watch saw the write, this reload fails.
	if out := r.Reload(context.Background()); !ocimodule.Retryable(out.Err) {
		t.Fatalf("reload with the registry down: %v", out.Err)
	}
	before := reg.Requests.Load()
	eventually(t, 10*time.Second, "a retry of the refused pull", func() bool { return reg.Requests.Load() > before })
	reg.Down.Store(false)
	eventually(t, 10*time.Second, "the Go build to serve once the registry answers", func() bool {
		r.reloading.Lock()
		defer r.reloading.Unlock()
		return serving(r, "policy") == contentDigest(gobuild)
	})
}

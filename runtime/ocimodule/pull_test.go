package ocimodule

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/file"
	"oras.land/oras-go/v2/content/memory"

	"github.com/caldera-scheduler/caldera/runtime/ocimodule/ocitest"
)

var meta = Metadata{Name: "zone-spread", ABI: "1.10", SDK: "caldera-go/1.10", Hooks: []string{"session_open", "node_order_batch"}}

func module(text string) []byte { return append([]byte("\x00asm\x01\x00\x00\x00"), text...) }

// push publishes code at repo:tag of r and returns the pinned reference.
func push(t *testing.T, remote Remote, r *ocitest.Registry, repoTag string, code []byte) string {
	t.Helper()
	pinned, _, err := remote.PushTo(context.Background(), r.Host()+"/"+repoTag, code, meta)
	if err != nil {
		t.Fatal(err)
	}
	return pinned
}

func TestPullByDigestThenFromTheStoreWithoutTheRegistry(t *testing.T) {
	r := ocitest.New(t, false)
	remote := Remote{PlainHTTP: true}
	pinned := push(t, remote, r, "policies/zone-spread:v1", module("one"))
	if !strings.HasPrefix(pinned, r.Host()+"/policies/zone-spread@sha256:") {
		t.Fatalf("push answered %q, want the repository pinned by digest", pinned)
	}
	dir := t.TempDir()
	got, err := NewPuller(remote, NewStore(dir)).Pull(context.Background(), pinned)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Code) != string(module("one")) || got.Image != pinned || !got.FromRegistry {
		t.Fatalf("pulled %q from %s (from registry %v), want module one from %s", got.Code, got.Image, got.FromRegistry, pinned)
	}
	// A restart: a new puller on the same cache, the registry gone.
	r.Close()
	again, err := NewPuller(remote, NewStore(dir)).Pull(context.Background(), pinned)
	if err != nil {
		t.Fatalf("pull from the cache with the registry stopped: %v", err)
	}
	if string(again.Code) != string(module("one")) || again.FromRegistry {
		t.Fatalf("pulled %q (from registry %v), want module one from the cache", again.Code, again.FromRegistry)
	}
}

func TestPullResolvesATagOnce(t *testing.T) {
	r := ocitest.New(t, false)
	remote := Remote{PlainHTTP: true}
	first := push(t, remote, r, "policies/zone-spread:stable", module("one"))
	dir := t.TempDir()
	p := NewPuller(remote, NewStore(dir))
	tagged := r.Host() + "/policies/zone-spread:stable"
	got, err := p.Pull(context.Background(), tagged)
	if err != nil || got.Image != first {
		t.Fatalf("Pull(%s) = %s, %v; want %s", tagged, got.Image, err, first)
	}
	second := push(t, remote, r, "policies/zone-spread:stable", module("two"))
	if got, err = p.Pull(context.Background(), tagged); err != nil || got.Image != first || string(got.Code) != string(module("one")) {
		t.Errorf("the same puller pulled %s (%v) after the tag moved; want the first resolution %s kept", got.Image, err, first)
	}
	// A new process resolves the tag afresh...
	if got, err = NewPuller(remote, NewStore(dir)).Pull(context.Background(), tagged); err != nil || got.Image != second {
		t.Errorf("a new puller pulled %s (%v), want %s", got.Image, err, second)
	}
	// ...and, with the registry away, takes what it resolved to last.
	r.Close()
	if got, err = NewPuller(remote, NewStore(dir)).Pull(context.Background(), tagged); err != nil || got.Image != second {
		t.Errorf("with the registry stopped a new puller pulled %s (%v), want the recorded %s", got.Image, err, second)
	}
}

func TestPullFailures(t *testing.T) {
	r := ocitest.New(t, false)
	remote := Remote{PlainHTTP: true}
	pinned := push(t, remote, r, "policies/zone-spread:v1", module("one"))
	tarImage := pushManifest(t, r, "policies/envoy-compat", ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: digest.FromString("x"), Size: 1})
	for _, tc := range []struct {
		name, image string
		corrupt     bool
		retryable   bool
		want        string
	}{
		{name: "no registry host", image: "zone-spread:v1", want: "is not an OCI reference"},
		{name: "no tag or digest", image: r.Host() + "/policies/zone-spread", want: "names neither a tag nor a digest"},
		{name: "unknown tag", image: r.Host() + "/policies/zone-spread:v9", retryable: true, want: "pulling " + r.Host() + "/policies/zone-spread:v9"},
		{name: "unknown digest", image: r.Host() + "/policies/zone-spread@" + digest.FromString("nothing").String(), retryable: true, want: "not found"},
		{name: "bytes that do not match", image: pinned, corrupt: true, want: "do not match the digest"},
		{name: "a tar layer", image: tarImage, want: "no layer holds a Wasm module (layers: application/vnd.oci.image.layer.v1.tar+gzip; read: application/vnd.wasm.content.layer.v1+wasm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.Corrupt = nil
			if tc.corrupt {
				r.Corrupt = func(d string, b []byte) []byte {
					if d == ocitest.DigestOf(module("one")) {
						return module("evil")[:len(b)]
					}
					return b
				}
			}
			_, err := NewPuller(remote, NewStore(t.TempDir())).Pull(context.Background(), tc.image)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Pull(%s) = %v, want an error containing %q", tc.image, err, tc.want)
			}
			if Retryable(err) != tc.retryable {
				t.Errorf("Retryable(%v) = %v, want %v", err, !tc.retryable, tc.retryable)
			}
		})
	}
}

// pushManifest stores a manifest with one layer in r and returns its
// pinned reference.
func pushManifest(t *testing.T, r *ocitest.Registry, repo string, layer ocispec.Descriptor) string {
	t.Helper()
	b, _ := json.Marshal(ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: ocispec.DescriptorEmptyJSON, Layers: []ocispec.Descriptor{layer}})
	return r.Host() + "/" + repo + "@" + r.PutManifest(b, ocispec.MediaTypeImageManifest)
}

// TLS with a CA file, and basic auth from a dockerconfigjson file.
func TestPullWithCAAndCredentials(t *testing.T) {
	r := ocitest.New(t, true)
	r.User, r.Password = "ci", "s3cret"
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(dir, ".dockerconfigjson")
	auth := base64.StdEncoding.EncodeToString([]byte("ci:s3cret"))
	if err := os.WriteFile(creds, []byte(`{"auths":{"`+r.Host()+`":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	remote := Remote{CAFile: ca, CredentialsFile: creds}
	if err := remote.Check(); err != nil {
		t.Fatal(err)
	}
	pinned := push(t, remote, r, "policies/zone-spread:v1", module("one"))
	if _, err := NewPuller(remote, NewStore("")).Pull(context.Background(), pinned); err != nil {
		t.Fatalf("pull with CA and credentials: %v", err)
	}
	for name, o := range map[string]Remote{
		"without the CA":          {CredentialsFile: creds},
		"without the credentials": {CAFile: ca},
	} {
		_, err := NewPuller(o, NewStore("")).Pull(context.Background(), pinned)
		if err == nil || !Retryable(err) {
			t.Errorf("%s: Pull = %v, want a registry error", name, err)
		}
	}
	if err := (Remote{CAFile: creds}).Check(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("Check with a CA file holding no certificate = %v", err)
	}
	if err := (Remote{CredentialsFile: filepath.Join(dir, "missing")}).Check(); err == nil {
		t.Error("Check with a missing credentials file passed")
	}
}

// What other tools read of a pushed module, through the OCI library: the
// media types, the annotations, and oras' file store writing the layer
// to <name>.wasm as `oras pull` does.
func TestPushedArtifactAsOtherToolsReadIt(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	code := module("one")
	desc, err := Push(ctx, store, "v1", code, meta)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Push(ctx, store, "v1", code, meta)
	if err != nil || again.Digest != desc.Digest {
		t.Errorf("pushing the same module again made %s (%v), want the same digest %s", again.Digest, err, desc.Digest)
	}
	b, err := content.FetchAll(ctx, store, desc)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.MediaType != ocispec.MediaTypeImageManifest || m.Config.MediaType != "application/vnd.wasm.config.v1+json" ||
		len(m.Layers) != 1 || m.Layers[0].MediaType != "application/vnd.wasm.content.layer.v1+wasm" || m.Layers[0].Digest != digest.FromBytes(code) {
		t.Errorf("manifest %s: want an OCI manifest, config application/vnd.wasm.config.v1+json, one layer application/vnd.wasm.content.layer.v1+wasm holding the module", b)
	}
	want := map[string]string{"sh.caldera.module.name": "zone-spread", "sh.caldera.module.abi": "1.10", "sh.caldera.module.sdk": "caldera-go/1.10", "sh.caldera.module.hooks": "session_open,node_order_batch"}
	for k, v := range want {
		if m.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, m.Annotations[k], v)
		}
	}
	if _, created := m.Annotations[ocispec.AnnotationCreated]; created {
		t.Error("the manifest carries a creation time: pushing the same module twice would make two digests")
	}
	out := t.TempDir()
	fs, err := file.New(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if _, err := oras.Copy(ctx, store, "v1", fs, "v1", oras.DefaultCopyOptions); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "zone-spread.wasm")); err != nil || string(got) != string(code) {
		t.Errorf("oras' file store wrote %q (%v), want the module as zone-spread.wasm", got, err)
	}
}

func TestPushNeedsATag(t *testing.T) {
	_, _, err := Remote{}.PushTo(context.Background(), "registry.example/p@"+digest.FromString("x").String(), module("one"), meta)
	if err == nil || !strings.Contains(err.Error(), "push to a tag") {
		t.Errorf("PushTo a digest = %v", err)
	}
}

func TestStoreDropsADamagedBlob(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	b := module("one")
	d := digest.FromBytes(b)
	if err := s.Put(d, b); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(d); !ok || string(got) != string(b) {
		t.Fatal("the stored blob did not read back")
	}
	if err := os.WriteFile(s.blobPath(d), module("evil"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(d); ok {
		t.Error("a damaged blob was read")
	}
	if _, err := os.Stat(s.blobPath(d)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the damaged blob is still there: %v", err)
	}
	if err := s.Put(d, module("evil")); err == nil {
		t.Error("Put accepted bytes that do not match the digest")
	}
}

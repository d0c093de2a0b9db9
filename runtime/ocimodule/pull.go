package ocimodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"k8s.io/klog/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
)

// PullTimeout bounds one pull, resolution and both fetches: a registry
// that accepts connections and never answers must not hold a reload.
const PullTimeout = 2 * time.Minute

// maxManifest bounds a manifest; a module's has a config and a layer or
// two, a few hundred bytes.
const maxManifest = 4 << 20

// Module is a pulled module.
type Module struct {
	// Image is the reference pinned to its manifest digest:
	// registry/repository@sha256:..., whatever tag the entry named.
	Image string
	Code  []byte
	// FromRegistry says something was fetched; false when the manifest
	// and the module were both in the store.
	FromRegistry bool
}

// Puller fetches modules for tier entries' wasm.image.
type Puller struct {
	Remote Remote
	Store  *Store

	mu sync.Mutex
	// resolved holds what each tag resolved to in this process: a tag is
	// resolved once, so that every later reload, and every replica's view
	// of the configuration, keeps meaning the module first pulled. A tag
	// moved in the registry is taken up by naming the new digest, or by a
	// restart.
	resolved map[string]digest.Digest
}

// NewPuller returns a Puller keeping what it pulls in store.
func NewPuller(remote Remote, store *Store) *Puller {
	return &Puller{Remote: remote, Store: store, resolved: map[string]digest.Digest{}}
}

// PullError is a pull that failed for want of the registry (unreachable,
// refusing, or not having the reference): the same configuration may pass
// later, so the reloader tries it again with a backoff. Content that is
// not a module, or does not match its digest, is another error.
type PullError struct {
	Image string
	Err   error
}

func (e *PullError) Error() string { return fmt.Sprintf("pulling %s: %v", e.Image, e.Err) }
func (e *PullError) Unwrap() error { return e.Err }

// Retryable reports whether err comes from a registry that may answer
// better later.
func Retryable(err error) bool {
	var pe *PullError
	return errors.As(err, &pe)
}

// ParseImage parses a wasm.image reference: registry/repository with a
// tag, a digest, or both (the digest then wins, as for container images).
func ParseImage(image string) (registry.Reference, error) {
	// oras' parser reads "repo:tag@digest" as the digest; it wants the
	// registry host first, as Kubernetes image names written in full have.
	ref, err := registry.ParseReference(image)
	if err != nil {
		return ref, fmt.Errorf("%q is not an OCI reference such as registry.example/policies/zone-spread@sha256:<64 hex> or registry.example/policies/zone-spread:v1: %w", image, err)
	}
	if ref.Reference == "" {
		return ref, fmt.Errorf("%q names neither a tag nor a digest: add @sha256:<digest> (or a :tag)", image)
	}
	return ref, nil
}

// Pull returns the module image names: from the store when its manifest
// and layer are there, otherwise from the registry, each blob checked
// against its digest and then kept in the store.
func (p *Puller) Pull(ctx context.Context, image string) (Module, error) {
	ref, err := ParseImage(image)
	if err != nil {
		return Module{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, PullTimeout)
	defer cancel()
	repo, err := p.Remote.repository(ref)
	if err != nil {
		return Module{}, err
	}
	out := Module{}
	manifestDigest, err := ref.Digest()
	if err != nil {
		if manifestDigest, err = p.resolveTag(ctx, image, ref, repo); err != nil {
			return Module{}, err
		}
	}
	pinned := ref
	pinned.Reference = manifestDigest.String()
	out.Image = pinned.String()

	manifestJSON, cached := p.Store.Get(manifestDigest)
	if !cached {
		desc, rc, err := repo.FetchReference(ctx, manifestDigest.String())
		if err != nil {
			return Module{}, &PullError{Image: image, Err: err}
		}
		if desc.Size > maxManifest {
			rc.Close()
			return Module{}, fmt.Errorf("%s: the manifest is %d bytes, more than a module's manifest (at most %d)", out.Image, desc.Size, maxManifest)
		}
		manifestJSON, err = content.ReadAll(rc, desc)
		rc.Close()
		if err != nil {
			return Module{}, fetchError(image, "manifest", err)
		}
		if desc.Digest != manifestDigest {
			return Module{}, fmt.Errorf("%s: the registry answered with manifest %s", out.Image, desc.Digest)
		}
		out.FromRegistry = true
	}
	layer, err := moduleLayer(manifestJSON)
	if err != nil {
		return Module{}, fmt.Errorf("%s: %w", out.Image, err)
	}
	code, cached := p.Store.Get(layer.Digest)
	if !cached {
		rc, err := repo.Fetch(ctx, layer)
		if err != nil {
			return Module{}, &PullError{Image: image, Err: err}
		}
		code, err = content.ReadAll(rc, layer)
		rc.Close()
		if err != nil {
			return Module{}, fetchError(image, "module layer "+layer.Digest.String(), err)
		}
		out.FromRegistry = true
	}
	// Kept only once the whole module is here and verified, so that the
	// store never holds a manifest whose module was refused.
	for d, b := range map[digest.Digest][]byte{manifestDigest: manifestJSON, layer.Digest: code} {
		if err := p.Store.Put(d, b); err != nil {
			klog.InfoS("Warning: could not keep a pulled blob in the cache; a restart will pull it again", "image", out.Image, "digest", d, "err", err)
		}
	}
	out.Code = code
	return out, nil
}

// fetchError says why reading what of image failed: bytes that do not
// match their digest or size are refused for good (the registry holds
// something else than the reference promises), a broken transfer is the
// registry's to retry.
func fetchError(image, what string, err error) error {
	if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, content.ErrInvalidDescriptorSize) {
		return fmt.Errorf("%s: %s: the registry's bytes do not match the digest: %w", image, what, err)
	}
	return &PullError{Image: image, Err: fmt.Errorf("%s: %w", what, err)}
}

// Pinned returns image pinned by its manifest digest when that is known
// without asking the registry: image's own digest, or what its tag
// resolved to in this process; "" otherwise.
func (p *Puller) Pinned(image string) string {
	ref, err := ParseImage(image)
	if err != nil {
		return ""
	}
	if _, err := ref.Digest(); err != nil {
		p.mu.Lock()
		d, ok := p.resolved[image]
		p.mu.Unlock()
		if !ok {
			return ""
		}
		ref.Reference = d.String()
	}
	return ref.String()
}

// resolveTag returns the manifest digest of a tagged reference: what it
// resolved to earlier in this process, else what the registry says now,
// else, with the registry away, what it resolved to before a restart.
func (p *Puller) resolveTag(ctx context.Context, image string, ref registry.Reference, repo registry.Repository) (digest.Digest, error) {
	p.mu.Lock()
	d, ok := p.resolved[image]
	p.mu.Unlock()
	if ok {
		return d, nil
	}
	desc, err := repo.Resolve(ctx, ref.Reference)
	switch {
	case err == nil:
		d = desc.Digest
		klog.InfoS("Resolved a module tag; the entry means this digest until the configuration or the process changes", "image", image, "digest", d)
		if serr := p.Store.SetTag(image, d); serr != nil {
			klog.InfoS("Warning: could not record what a module tag resolved to", "image", image, "err", serr)
		}
	default:
		stored, ok := p.Store.Tag(image)
		if !ok {
			return "", &PullError{Image: image, Err: err}
		}
		d = stored
		klog.InfoS("Warning: the registry did not resolve a module tag; using the digest it resolved to before",
			"image", image, "digest", d, "err", err)
	}
	p.mu.Lock()
	if first, ok := p.resolved[image]; ok {
		d = first // resolved meanwhile by another pull: keep one answer
	} else {
		p.resolved[image] = d
	}
	p.mu.Unlock()
	return d, nil
}

// moduleLayer finds the module's layer in a manifest.
func moduleLayer(manifestJSON []byte) (ocispec.Descriptor, error) {
	var m struct {
		MediaType string               `json:"mediaType"`
		Manifests []json.RawMessage    `json:"manifests"` // an index's
		Layers    []ocispec.Descriptor `json:"layers"`
	}
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	if m.MediaType != "" && !slices.Contains(manifestTypes, m.MediaType) {
		return ocispec.Descriptor{}, fmt.Errorf("the reference names a %s, not an image manifest: name the manifest of the module itself", m.MediaType)
	}
	if len(m.Manifests) > 0 {
		return ocispec.Descriptor{}, fmt.Errorf("the reference names an image index of %d manifests: name the manifest of the module itself", len(m.Manifests))
	}
	var found []ocispec.Descriptor
	var types []string
	for _, l := range m.Layers {
		types = append(types, l.MediaType)
		if isModuleLayer(l.MediaType) {
			found = append(found, l)
		}
	}
	switch {
	case len(found) == 0:
		return ocispec.Descriptor{}, fmt.Errorf("no layer holds a Wasm module (layers: %s; read: %s, each the module's bytes; an image whose module is inside a tar layer is not read)",
			orNone(types), acceptedLayers())
	case len(found) > 1:
		return ocispec.Descriptor{}, fmt.Errorf("%d layers hold Wasm modules (%s): a policy module is one layer", len(found), strings.Join(types, ", "))
	}
	layer := found[0]
	if layer.Size > regularfile.MaxModule {
		return ocispec.Descriptor{}, fmt.Errorf("the module layer is %d bytes, more than a module may be (%d)", layer.Size, regularfile.MaxModule)
	}
	if err := layer.Digest.Validate(); err != nil || layer.Digest.Algorithm() != digest.SHA256 {
		return ocispec.Descriptor{}, fmt.Errorf("the module layer's digest %q is not a sha256 digest", layer.Digest)
	}
	return layer, nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// ContentDigest is a module's sha256 in hex, as wasm.sha256 pins it.
func ContentDigest(code []byte) string { return digest.FromBytes(code).Encoded() }

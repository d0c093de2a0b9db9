package ocimodule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
)

// Metadata is what a pushed module says of itself, from its descriptor.
type Metadata struct {
	Name  string   `json:"name"`
	ABI   string   `json:"abi"`
	SDK   string   `json:"sdk"`
	Hooks []string `json:"hooks"`
}

// Push publishes code as a module artifact in target and tags it; it
// returns the manifest's descriptor, whose digest is what a tier entry
// pins. The manifest carries no creation time: the same module and
// metadata always make the same digest, so pushing again changes nothing.
func Push(ctx context.Context, target oras.Target, tag string, code []byte, meta Metadata) (ocispec.Descriptor, error) {
	config, err := json.Marshal(meta)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	configDesc := content.NewDescriptorFromBytes(ConfigMediaType, config)
	layerDesc := content.NewDescriptorFromBytes(LayerMediaType, code)
	// oras pull writes a layer to the file its title names, and skips a
	// layer without one.
	layerDesc.Annotations = map[string]string{ocispec.AnnotationTitle: meta.Name + ".wasm"}
	manifest := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    configDesc,
		Layers:    []ocispec.Descriptor{layerDesc},
		Annotations: map[string]string{
			AnnotationName:  meta.Name,
			AnnotationABI:   meta.ABI,
			AnnotationSDK:   meta.SDK,
			AnnotationHooks: strings.Join(meta.Hooks, ","),
		},
	}
	manifestJSON, err := json.Marshal(manifest)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	manifestDesc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, manifestJSON)
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{layerDesc, code}, {configDesc, config}, {manifestDesc, manifestJSON}} {
		if err := pushOnce(ctx, target, b.desc, b.data); err != nil {
			return ocispec.Descriptor{}, err
		}
	}
	if err := target.Tag(ctx, manifestDesc, tag); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("tagging %s as %s: %w", manifestDesc.Digest, tag, err)
	}
	return manifestDesc, nil
}

// pushOnce pushes a blob or manifest the target does not have yet.
func pushOnce(ctx context.Context, target oras.Target, desc ocispec.Descriptor, data []byte) error {
	if ok, err := target.Exists(ctx, desc); err == nil && ok {
		return nil
	}
	err := target.Push(ctx, desc, bytes.NewReader(data))
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return fmt.Errorf("pushing %s (%s): %w", desc.Digest, desc.MediaType, err)
	}
	return nil
}

// PushTo publishes code to the registry under ref, a tagged reference.
func (o Remote) PushTo(ctx context.Context, ref string, code []byte, meta Metadata) (string, ocispec.Descriptor, error) {
	r, err := ParseImage(ref)
	if err != nil {
		return "", ocispec.Descriptor{}, err
	}
	if r.ValidateReferenceAsTag() != nil {
		return "", ocispec.Descriptor{}, fmt.Errorf("%q: push to a tag (registry/repository:tag); the digest is the registry's answer", ref)
	}
	repo, err := o.repository(r)
	if err != nil {
		return "", ocispec.Descriptor{}, err
	}
	desc, err := Push(ctx, repo, r.Reference, code, meta)
	if err != nil {
		return "", desc, err
	}
	r.Reference = desc.Digest.String()
	return r.String(), desc, nil
}

package ocimodule

import (
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// What Push writes: the config and layer media types of wasm-to-oci, which
// Kubewarden's kwctl also writes and reads, so that a module published by
// `caldera plugin push` is a Wasm artifact to oras, crane, kwctl and
// registries' UIs alike.
const (
	ConfigMediaType = "application/vnd.wasm.config.v1+json"
	LayerMediaType  = "application/vnd.wasm.content.layer.v1+wasm"
)

// moduleLayerTypes are the layer media types read as a raw module: ours,
// Istio's oci variant (solo-io's Wasm image spec, beside a runtime-config
// layer) and the CNCF TAG Runtime Wasm artifact layout.
var moduleLayerTypes = []string{
	LayerMediaType,
	"application/vnd.module.wasm.content.layer.v1+wasm",
	"application/wasm",
}

// Manifest annotations Push writes from the module's descriptor, so that a
// registry listing says what each digest is without pulling it.
const (
	AnnotationName  = "sh.caldera.module.name"
	AnnotationABI   = "sh.caldera.module.abi"
	AnnotationSDK   = "sh.caldera.module.sdk"
	AnnotationHooks = "sh.caldera.module.hooks"
)

// manifestTypes are the manifest media types Pull reads; an index (a
// multi-platform image) names no single module.
var manifestTypes = []string{
	ocispec.MediaTypeImageManifest,
	"application/vnd.docker.distribution.manifest.v2+json",
}

func isModuleLayer(mediaType string) bool { return slices.Contains(moduleLayerTypes, mediaType) }

func acceptedLayers() string { return strings.Join(moduleLayerTypes, ", ") }

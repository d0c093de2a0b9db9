// Package ocimodule delivers Wasm policy modules through OCI registries:
// Push publishes a module as a one-layer OCI artifact, Puller fetches one
// by reference for a tier entry's wasm.image, verifies every byte against
// its digest, and keeps what it fetched on disk by digest so that a
// restart serves from the cache while the registry is away.
//
// The wire format, which other ecosystems' tools read too:
//
//	manifest  application/vnd.oci.image.manifest.v1+json
//	  config  application/vnd.wasm.config.v1+json       {"name","abi","sdk","hooks"}
//	  layers  application/vnd.wasm.content.layer.v1+wasm  the module's bytes, raw
//	  annotations sh.caldera.module.{name,abi,sdk,hooks}
//
// Pull also reads the raw-module layers of Istio's oci variant and of the
// CNCF Wasm artifact layout (see moduleLayerTypes); layers that are tar
// archives are refused with the media types found.
package ocimodule

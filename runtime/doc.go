// Package runtime loads Caldera Wasm plugin modules with wazero and calls
// them through the ABI of package abi (docs/abi.md).
//
// A Plugin is one compiled module with its own wazero runtime, so that its
// memory limit is its own; the compilation cache (on disk when configured)
// is shared, so that a restart does not recompile. Instances are pooled: a
// call takes an idle instance or makes one, and returns it afterwards unless
// the call trapped, timed out or exhausted memory, in which case the instance
// is closed and never reused.
//
// The sandbox grants no filesystem, network, environment or arguments; the
// clock and randomness are wazero's fakes unless the plugin allows them.
package runtime

// Package runtime loads Caldera Wasm plugin modules with wazero and calls
// them through the ABI of package abi (docs/abi.md).
//
// A Plugin is one compiled module with its own wazero runtime, so that its
// memory limit is its own. Callers may share a wazero compilation cache
// between plugins (the commands share one in memory; an on-disk cache that
// would spare a restart the compilation is not wired yet). Instances are
// pooled: a call takes an idle instance or makes one, and returns it
// afterwards unless the call trapped, timed out or exhausted memory, in which
// case the instance is closed and never reused.
//
// The sandbox grants no filesystem, network, environment or arguments; the
// clock and randomness are wazero's deterministic fakes.
package runtime

// Package runtime loads Caldera Wasm plugin modules with wazero and calls
// them through the ABI of package abi (docs/abi.md).
//
// A Plugin is one compiled module with its own wazero runtime, so that its
// memory limit is its own. Callers may share a wazero compilation cache
// between plugins (the commands share one, on disk in --wasm-cache-dir, so
// that a restart does not recompile). Instances are pooled: a session leases
// one for all its calls (the guest keeps the session's view), and returns it
// afterwards unless a call trapped, timed out or exhausted memory, in which
// case the instance is closed and never reused; the next call reopens the
// session on a fresh instance.
//
// The sandbox grants no filesystem, network, environment or arguments; the
// clock and randomness are wazero's deterministic fakes.
package runtime

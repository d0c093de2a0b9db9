// Package framework runs one scheduling session: it opens a Session on a
// snapshot, instantiates the configured plugins tier by tier, exposes every
// hook through the combination rule Volcano applies to it, lets actions make
// tentative decisions through a Statement, and on close writes back what
// changed.
//
// A plugin implements Plugin plus one small interface per hook it offers
// (JobOrderer, Predicater, NodeScorer, ...). Whether a hook takes part is
// decided by the tier entry's enable flag for that hook; a plugin may further
// narrow what it offers with HookFilter (the Wasm adapter does, so that only
// the hooks a module exports are registered).
package framework

// Package benchmarks measures whole scheduling sessions on synthetic clusters
// with the default configuration and native plugins. Run with `make bench`;
// compare runs with benchstat.
package benchmarks

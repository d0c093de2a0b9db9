// Package conf reads Volcano's scheduler configuration format unchanged:
// an actions string, tiers of plugins with per-hook enable flags and
// arguments, and per-action configurations. It validates names and types
// against what the caller says exists and reports every problem with the file,
// the key and what was expected.
package conf

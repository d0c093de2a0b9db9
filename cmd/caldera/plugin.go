package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tetratelabs/wazero"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/runtime/reload"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	schedconf "github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

func newPluginCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Inspect, validate, test and publish Wasm policy modules",
		Args:  cobra.ArbitraryArgs,
		// Without this a mistyped subcommand printed the help and exited 0.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for \"caldera plugin\" (commands: %s)", args[0], strings.Join(subcommandNames(cmd), ", "))
			}
			return cmd.Help()
		},
	}
	addWasmCacheFlag(cmd.PersistentFlags())
	cmd.AddCommand(newPluginTestCommand(), newPluginCallCommand(), newPluginNewCommand(), newPluginPushCommand(), newPluginPullCommand())
	inspect := &cobra.Command{
		Use:   "inspect FILE.wasm",
		Short: "Print a module's declared name, ABI version, hooks, arguments and promises",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			output, _ := cmd.Flags().GetString("output")
			if output != "table" && output != "json" {
				return fmt.Errorf("--output: expected table or json, got %q", output)
			}
			cache := cacheOf(cmd)
			defer cache.Close(context.Background())
			p, err := loadForInspection(args[0], cache)
			if err != nil {
				return err
			}
			defer p.Close(context.Background())
			info, err := describe(args[0], p)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			info.print(cmd.OutOrStdout())
			return nil
		},
	}
	inspect.Flags().String("output", "table", "output format: table or json")
	cmd.AddCommand(inspect)
	validate := &cobra.Command{
		Use:   "validate FILE.wasm",
		Short: "Load a module in the sandbox and run a self-test session with it",
		Long: `Loads the module as the scheduler would, then runs one session with it after the
native priority, gang and predicates plugins: the self-test every module passes
before a hot reload puts it into service. The session runs on a small built-in
cluster (two nodes, a gang of two, a GPU pod), or on --cluster's manifests; the
module gets the arguments of its tier entry in --scheduler-conf (an entry named as
the file, without .wasm), or none. Reports the first thing that goes wrong: a file
that is not Wasm, missing exports, another ABI major version, a descriptor that
cannot be read, an argument of the wrong type, or a hook that traps, times out, runs
out of memory or answers garbage.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := settings(cmd.Flags())
			cache := cacheOf(cmd)
			defer cache.Close(context.Background())
			return validatePlugin(cmd.Context(), cmd.OutOrStdout(), args[0], cache, v.GetString("scheduler-conf"), v.GetString("cluster"))
		},
	}
	validate.Flags().String("scheduler-conf", "", "scheduler configuration whose tier entry for the module gives its arguments")
	validate.Flags().String("cluster", "", "manifest file of the cluster to run the session on (default: the built-in self-test cluster)")
	cmd.AddCommand(validate)
	return cmd
}

func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// cacheOf returns the compilation cache --wasm-cache-dir names.
func cacheOf(cmd *cobra.Command) wazero.CompilationCache {
	return compilationCache(settings(cmd.Flags()).GetString("wasm-cache-dir"))
}

func loadForInspection(path string, cache wazero.CompilationCache) (*runtime.Plugin, error) {
	opts, err := inspectionOptions(path, cache)
	if err != nil {
		return nil, err
	}
	return runtime.Load(context.Background(), path, opts)
}

// inspectionOptions are the sandbox options a module file is inspected
// with, named after the file.
func inspectionOptions(path string, cache wazero.CompilationCache) (runtime.Options, error) {
	if !strings.HasSuffix(path, ".wasm") {
		return runtime.Options{}, fmt.Errorf("%s: expected a .wasm file", path)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	return runtime.Options{Name: name, Limits: runtime.DefaultLimits(), Cache: cache, Log: reload.GuestLog(name)}, nil
}

// moduleInfo is what `caldera plugin inspect` prints of a module.
type moduleInfo struct {
	File       string         `json:"file"`
	Size       int64          `json:"size"`
	SHA256     string         `json:"sha256"`
	Name       string         `json:"name"`
	ABI        string         `json:"abi"`
	SDK        string         `json:"sdk"`
	Hooks      []string       `json:"hooks"`
	Arguments  []abi.Argument `json:"arguments"`
	Promises   []string       `json:"promises"`
	EventKinds []string       `json:"eventKinds,omitempty"`
}

func describe(path string, p *runtime.Plugin) (*moduleInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	d := p.Descriptor()
	m := &moduleInfo{File: path, Size: info.Size(), SHA256: p.SHA256(), Name: d.Name, ABI: p.Version().String(), SDK: d.SDK,
		Hooks: d.Hooks, Arguments: d.Arguments, Promises: []string{}, EventKinds: d.EventKinds}
	if m.Arguments == nil {
		m.Arguments = []abi.Argument{}
	}
	// The descriptor's promises (docs/abi.md section 7), by their wire names.
	for _, promise := range []struct {
		name string
		made bool
	}{{"stableKeys", d.StableKeys}, {"localKeys", d.LocalKeys}, {"deltas", d.Deltas}, {"undoEvents", d.UndoEvents}, {"nodeLocal", d.NodeLocal}, {"claimChecks", d.ClaimChecks}} {
		if promise.made {
			m.Promises = append(m.Promises, promise.name)
		}
	}
	return m, nil
}

func (m *moduleInfo) print(w io.Writer) {
	fmt.Fprintf(w, "file:      %s (%d bytes, sha256 %s)\n", m.File, m.Size, m.SHA256)
	fmt.Fprintf(w, "name:      %s\n", m.Name)
	fmt.Fprintf(w, "abi:       %s\n", m.ABI)
	fmt.Fprintf(w, "sdk:       %s\n", m.SDK)
	fmt.Fprintf(w, "hooks:     %s\n", strings.Join(m.Hooks, ", "))
	promises := "none"
	if len(m.Promises) > 0 {
		promises = strings.Join(m.Promises, ", ")
	}
	fmt.Fprintf(w, "promises:  %s\n", promises)
	if len(m.EventKinds) > 0 {
		fmt.Fprintf(w, "events:    %s\n", strings.Join(m.EventKinds, ", "))
	}
	if len(m.Arguments) > 0 {
		fmt.Fprintln(w, "arguments:")
		for _, a := range m.Arguments {
			fmt.Fprintf(w, "  %s (%s, default %v)\n", a.Name, a.Type, a.Default)
		}
	}
}

// validatePlugin loads the module and runs the self-test session, with
// the arguments confPath gives it, on clusterPath's cluster or the
// built-in one.
func validatePlugin(ctx context.Context, w io.Writer, path string, cache wazero.CompilationCache, confPath, clusterPath string) error {
	p, err := loadForInspection(path, cache)
	if err != nil {
		return err
	}
	defer p.Close(ctx)
	info, err := describe(path, p)
	if err != nil {
		return err
	}
	info.print(w)
	if err := reload.CheckHooks(p); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	var args map[string]any
	if confPath != "" {
		cfg, err := schedconf.Load(confPath, nil)
		if err != nil {
			return err
		}
		found := false
		for _, tier := range cfg.Tiers {
			for _, opt := range tier.Plugins {
				if opt.Name == name {
					args, found = opt.Arguments, true
				}
			}
		}
		if !found {
			return fmt.Errorf("%s: no tier entry names plugin %q (the module's file name without .wasm)", confPath, name)
		}
	}
	snapshot := reload.SelfTestSnapshot()
	where := "the built-in cluster"
	if clusterPath != "" {
		cluster, err := simulator.LoadCluster(clusterPath)
		if err != nil {
			return err
		}
		if snapshot, err = simulator.Snapshot(ctx, cluster, []string{"volcano"}); err != nil {
			return err
		}
		where = clusterPath
	}
	calls := p.Calls()
	bound, pending, err := reload.SelfTestOn(snapshot, name, p, args, hostplugins.Registry(), actions.Registry())
	if err != nil && confPath != "" {
		return fmt.Errorf("%w (the module's arguments from %s)", err, confPath)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "self-test: one session on %s, %d calls answered, %d of %d pods bound\n", where, p.Calls()-calls, bound, pending)
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tetratelabs/wazero"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/runtime/reload"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
)

func newPluginCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Inspect, validate and test Wasm policy modules",
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
	cmd.AddCommand(newPluginTestCommand())
	cmd.AddCommand(&cobra.Command{
		Use:   "inspect FILE.wasm",
		Short: "Print a module's declared name, ABI version, hooks and size",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cache := cacheOf(cmd)
			defer cache.Close(context.Background())
			p, err := loadForInspection(args[0], cache)
			if err != nil {
				return err
			}
			defer p.Close(context.Background())
			return printDescriptor(cmd.OutOrStdout(), args[0], p)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE.wasm",
		Short: "Load a module in the sandbox and run a self-test session with it",
		Long: `Loads the module as the scheduler would, then runs one session on a small built-in
cluster (two nodes, a gang of two, a GPU pod) with the module after the native
predicates; every module passes the same self-test before a hot reload puts it into
service. Reports the first thing that goes wrong: a file that is not Wasm, missing
exports, another ABI major version, a descriptor that cannot be read, or a hook that
traps, times out, runs out of memory or answers garbage.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cache := cacheOf(cmd)
			defer cache.Close(context.Background())
			return validatePlugin(cmd.Context(), cmd.OutOrStdout(), args[0], cache)
		},
	})
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
	if !strings.HasSuffix(path, ".wasm") {
		return nil, fmt.Errorf("%s: expected a .wasm file", path)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	return runtime.Load(context.Background(), path, runtime.Options{Name: name, Limits: runtime.DefaultLimits(), Cache: cache, Log: reload.GuestLog(name)})
}

func printDescriptor(w io.Writer, path string, p *runtime.Plugin) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	d := p.Descriptor()
	fmt.Fprintf(w, "file:      %s (%d bytes, sha256 %s)\n", path, info.Size(), p.SHA256())
	fmt.Fprintf(w, "name:      %s\n", d.Name)
	fmt.Fprintf(w, "abi:       %s\n", p.Version())
	fmt.Fprintf(w, "sdk:       %s\n", d.SDK)
	fmt.Fprintf(w, "hooks:     %s\n", strings.Join(d.Hooks, ", "))
	if len(d.Arguments) > 0 {
		fmt.Fprintln(w, "arguments:")
		for _, a := range d.Arguments {
			fmt.Fprintf(w, "  %s (%s, default %v)\n", a.Name, a.Type, a.Default)
		}
	}
	return nil
}

func validatePlugin(ctx context.Context, w io.Writer, path string, cache wazero.CompilationCache) error {
	p, err := loadForInspection(path, cache)
	if err != nil {
		return err
	}
	defer p.Close(ctx)
	if err := printDescriptor(w, path, p); err != nil {
		return err
	}
	if err := reload.CheckHooks(p); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	calls := p.Calls()
	bound, err := reload.SelfTest(name, p, nil, hostplugins.Registry(), actions.Registry())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "self-test: one session, %d calls answered, %d of %d pods bound\n", p.Calls()-calls, bound, reload.SelfTestPods)
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/caldera-scheduler/caldera/scheduler/simulator"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/scenario"
)

func newPluginTestCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test DIR...",
		Short: "Run scenario folders and compare what the scheduler decides with their expect.yaml",
		Long: `Runs each scenario folder as caldera simulate would and compares the result with
the folder's expect.yaml. A folder holds cluster.yaml (manifests), expect.yaml and,
optionally, scheduler.yaml; a DIR without a cluster.yaml is searched for folders that
have one. expect.yaml's sessions (default 1) is how many sessions run.

Prints "ok" or "FAIL" per folder, each difference on a line of its own under a
failing folder, and exits non-zero when any folder fails. The format of expect.yaml is
in docs/plugin-guide.md.`,
		Args: cobra.MinimumNArgs(1),
	}
	cmd.Flags().String("plugin-dir", "", "directory of the .wasm modules the scenarios' configurations name (default: each scenario's own folder)")
	addRegistryFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		v := settings(cmd.Flags())
		dirs, err := scenario.Find(args...)
		if err != nil {
			return err
		}
		opts := scenarioOptions{pluginDir: v.GetString("plugin-dir"), cacheDir: v.GetString("wasm-cache-dir"), registry: map[string]string{}}
		for _, name := range []string{"registry-config", "registry-ca-file", "registry-insecure-skip-tls-verify", "registry-plain-http"} {
			opts.registry[name] = v.GetString(name)
		}
		return runScenarios(cmd.Context(), cmd.OutOrStdout(), dirs, opts)
	}
	return cmd
}

// scenarioOptions are the flags of `caldera plugin test` that reach each
// folder's simulation: where modules are, the Wasm cache, and how to reach
// registries for tier entries naming wasm.image.
type scenarioOptions struct {
	pluginDir, cacheDir string
	registry            map[string]string
}

// runScenarios runs the folders, reports each, and fails when one does.
func runScenarios(ctx context.Context, w io.Writer, dirs []string, opts scenarioOptions) error {
	failed := 0
	for _, dir := range dirs {
		diffs := scenarioDiffs(ctx, dir, opts)
		if len(diffs) == 0 {
			fmt.Fprintf(w, "ok    %s\n", dir)
			continue
		}
		failed++
		fmt.Fprintf(w, "FAIL  %s\n", dir)
		for _, d := range diffs {
			fmt.Fprintf(w, "      %s\n", d)
		}
	}
	fmt.Fprintf(w, "%d scenario folder(s): %d passed, %d failed\n", len(dirs), len(dirs)-failed, failed)
	if failed > 0 {
		return fmt.Errorf("%d of %d scenario folder(s) failed", failed, len(dirs))
	}
	return nil
}

// scenarioDiffs runs one folder and returns what differs from its
// expectation; a folder that cannot be read or run is one difference
// saying why.
func scenarioDiffs(ctx context.Context, dir string, opts scenarioOptions) []string {
	f, err := scenario.Read(dir)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	res, err := runScenario(ctx, f, opts)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	diffs := f.Expect.Check(res)
	if len(diffs) > 0 && f.Expect.Source != "" {
		diffs = append(diffs, "source: "+strings.TrimSpace(f.Expect.Source))
	}
	return diffs
}

// runScenario runs a folder through caldera simulate's flags and code.
func runScenario(ctx context.Context, f *scenario.Folder, opts scenarioOptions) (*simulator.Result, error) {
	flags := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	addSimulateFlags(flags)
	set := map[string]string{
		"cluster":        f.Cluster(),
		"cycles":         strconv.Itoa(f.Expect.Sessions),
		"scheduler-conf": f.SchedulerConf,
		"plugin-dir":     opts.pluginDir,
		"wasm-cache-dir": opts.cacheDir,
		"watch":          "false",
	}
	for name, value := range opts.registry {
		if value != "" {
			set[name] = value
		}
	}
	for name, value := range set {
		if err := flags.Set(name, value); err != nil {
			return nil, fmt.Errorf("--%s: %w", name, err)
		}
	}
	_, res, err := simulation(ctx, settings(flags), nil)
	return res, err
}

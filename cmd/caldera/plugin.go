package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	config "github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

func newPluginCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "Inspect and validate Wasm policy modules"}
	cmd.AddCommand(&cobra.Command{
		Use:   "inspect FILE.wasm",
		Short: "Print a module's declared name, ABI version, hooks and size",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadForInspection(args[0])
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
		Long: `Loads the module as the scheduler would, then runs one session of the embedded
simulator on a small built-in cluster with the module scoring nodes after the native
predicates. Reports the first thing that goes wrong: a file that is not Wasm, missing
exports, another ABI major version, a descriptor that cannot be read, or a hook that
traps, times out, runs out of memory or answers garbage.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return validatePlugin(cmd.Context(), cmd.OutOrStdout(), args[0])
		},
	})
	return cmd
}

func loadForInspection(path string) (*runtime.Plugin, error) {
	if !strings.HasSuffix(path, ".wasm") {
		return nil, fmt.Errorf("%s: expected a .wasm file", path)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	return runtime.Load(context.Background(), path, runtime.Options{Name: name, Limits: runtime.DefaultLimits(), Log: guestLog(name)})
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

// selfTestCluster is small but exercises the view: two node shapes, a
// taint, a gang and a plain pod.
const selfTestCluster = `apiVersion: v1
kind: Node
metadata: {name: small, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: large, labels: {zone: b}}
spec: {taints: [{key: dedicated, value: batch, effect: PreferNoSchedule}]}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/gpu: "2"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: gang, namespace: default}
spec: {minMember: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: gang-0, namespace: default, annotations: {scheduling.k8s.io/group-name: gang}}
spec: {schedulerName: volcano, containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: gang-1, namespace: default, annotations: {scheduling.k8s.io/group-name: gang}}
spec: {schedulerName: volcano, containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: plain, namespace: default}
spec: {schedulerName: volcano, containers: [{name: c, image: x, resources: {requests: {cpu: "2", nvidia.com/gpu: "1"}}}]}
`

func validatePlugin(ctx context.Context, w io.Writer, path string) error {
	p, err := loadForInspection(path)
	if err != nil {
		return err
	}
	defer p.Close(ctx)
	if err := printDescriptor(w, path, p); err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	plugins, acts := hostplugins.Registry(), actions.Registry()
	if _, native := plugins[name]; native {
		name += ".module"
	}
	plugins[name] = runtime.Factory(name, p, runtime.Policy{})
	conf := fmt.Sprintf("actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins: [{name: priority}, {name: gang}, {name: predicates}, {name: %q}]\n", name)
	cfg, err := config.Parse([]byte(conf), "self-test configuration", framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		return err
	}
	cluster, err := simulator.ParseCluster([]byte(selfTestCluster), "self-test cluster")
	if err != nil {
		return err
	}
	res, err := simulator.Run(ctx, simulator.Options{Cluster: cluster, Config: cfg, Plugins: plugins, Actions: acts, Cycles: 1})
	if err != nil {
		return fmt.Errorf("self-test session: %w", err)
	}
	if n := p.Failures(); n > 0 {
		return fmt.Errorf("self-test session: %d of %d calls into the module failed (the log above names each)", n, p.Calls())
	}
	fmt.Fprintf(w, "self-test: one session, %d calls answered, %d of 3 pods bound\n", p.Calls(), len(res.Binds))
	return nil
}

package main

import (
	"flag"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"github.com/tetratelabs/wazero"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "caldera",
		Short:         "A Volcano-compatible batch scheduler for Kubernetes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulateCommand(), newRunCommand(), newPluginCommand())
	// klog's verbosity flags, for the scheduler's own logs.
	logFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(logFlags)
	for _, name := range []string{"v", "vmodule"} {
		root.PersistentFlags().AddGoFlag(logFlags.Lookup(name))
	}
	return root
}

// settings layers a command's flags over CALDERA_* environment variables
// (CALDERA_SCHEDULER_CONF for --scheduler-conf) and defaults, with viper.
func settings(flags *pflag.FlagSet) *viper.Viper {
	v := viper.New()
	v.SetEnvPrefix("CALDERA")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	_ = v.BindPFlags(flags)
	return v
}

// registries returns the native plugins and actions, plus a plugin for
// every .wasm module in the plugin directory: --plugin-dir, or the folder
// of the configuration file.
func registries(v *viper.Viper) (framework.Registry, framework.ActionRegistry, error) {
	plugins := hostplugins.Registry()
	dir := pluginDirFor(v.GetString("plugin-dir"), v.GetString("scheduler-conf"))
	if err := addWasmPlugins(plugins, dir, wazero.NewCompilationCache()); err != nil {
		return nil, nil, err
	}
	return plugins, actions.Registry(), nil
}

// loadConfig reads the scheduler configuration file, or the built-in
// default when path is empty.
func loadConfig(path string, plugins framework.Registry, acts framework.ActionRegistry) (*conf.Config, error) {
	v := framework.Validator{Plugins: plugins, Actions: acts}
	if path == "" {
		return conf.Default(v)
	}
	return conf.Load(path, v)
}

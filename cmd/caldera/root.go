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

// policy is what a command schedules with: the plugins (native, plus one
// per .wasm module in the plugin directory), the actions, and the
// configuration validated against them.
type policy struct {
	plugins framework.Registry
	actions framework.ActionRegistry
	config  *conf.Config
}

// loadPolicy builds the registries and reads --scheduler-conf, or Volcano's
// default configuration when it is empty. The plugin directory is
// --plugin-dir, or the folder of the configuration file.
func loadPolicy(v *viper.Viper) (policy, error) {
	p := policy{plugins: hostplugins.Registry(), actions: actions.Registry()}
	path := v.GetString("scheduler-conf")
	if err := addWasmPlugins(p.plugins, pluginDirFor(v.GetString("plugin-dir"), path), wazero.NewCompilationCache()); err != nil {
		return p, err
	}
	validator := framework.Validator{Plugins: p.plugins, Actions: p.actions}
	var err error
	if path == "" {
		p.config, err = conf.Default(validator)
	} else {
		p.config, err = conf.Load(path, validator)
	}
	return p, err
}

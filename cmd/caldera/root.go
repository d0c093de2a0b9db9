package main

import (
	"flag"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"k8s.io/klog/v2"
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

// schedulerNames reads --scheduler-name, repeatable and comma-separated on
// the command line; CALDERA_SCHEDULER_NAME, which viper splits at spaces
// only, may separate names with commas as well. A schedulerName never holds
// a comma or a space.
func schedulerNames(v *viper.Viper) []string {
	var out []string
	for _, item := range v.GetStringSlice("scheduler-name") {
		for _, name := range strings.Split(item, ",") {
			if name = strings.TrimSpace(name); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// eventComponent is the source component of the scheduler's Events, as
// Volcano's scheduler names it: its one scheduler name, or "volcano" when
// it serves several (or none), so that `kubectl describe` and tools
// selecting Events by source see the same name after a swap.
func eventComponent(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return "volcano"
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

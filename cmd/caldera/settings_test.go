package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// --scheduler-name takes repeated flags and comma-separated lists alike, and
// CALDERA_SCHEDULER_NAME takes commas as well as spaces (viper alone would
// read "a,b" as one name).
func TestSchedulerNames(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      []string
	}{
		{"default", "", nil, []string{"volcano"}},
		{"repeated and comma-separated flags", "", []string{"--scheduler-name=a", "--scheduler-name=b,c"}, []string{"a", "b", "c"}},
		{"environment, commas", "a,b", nil, []string{"a", "b"}},
		{"environment, spaces", "a b", nil, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CALDERA_SCHEDULER_NAME", tc.env) // empty: unset, for viper
			f := pflag.NewFlagSet("test", pflag.ContinueOnError)
			f.StringSlice("scheduler-name", []string{"volcano"}, "")
			if err := f.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if got := schedulerNames(settings(f)); !slices.Equal(got, tc.want) {
				t.Errorf("names %q, want %q", got, tc.want)
			}
		})
	}
}

// Events name the scheduler as Volcano's do: its one name, else "volcano".
func TestEventComponent(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"volcano"}, "volcano"},
		{[]string{"batch"}, "batch"},
		{[]string{"a", "b"}, "volcano"},
		{nil, "volcano"},
	} {
		if got := eventComponent(tc.names); got != tc.want {
			t.Errorf("eventComponent(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/hostplugins/extender"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// readDoc returns a file of the repository, relative to its root.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// docSection returns the text under a "## " heading, up to the next one.
func docSection(t *testing.T, path, heading string) string {
	t.Helper()
	_, section, ok := strings.Cut(readDoc(t, path), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", path, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// The ABI version the docs name is the one the host speaks.
func TestDocsNameTheABIVersion(t *testing.T) {
	want := fmt.Sprintf("%d.%d", abi.Major, abi.Minor)
	for path, pattern := range map[string]string{
		"README.md":                `versioned msgpack ABI \(docs/abi\.md, version (\d+\.\d+)\)`,
		"docs/abi.md":              `^# The Caldera Wasm ABI, version (\d+\.\d+)`,
		"docs/plugin-guide.md":     `What works \(ABI (\d+\.\d+),`,
		"guest-sdk/go/README.md":   `speaks that ABI\s+\(version (\d+\.\d+)\)`,
		"guest-sdk/rust/README.md": `speaks that ABI\s+\(version (\d+\.\d+)\)`,
	} {
		m := regexp.MustCompile(pattern).FindStringSubmatch(readDoc(t, path))
		if m == nil {
			t.Errorf("%s does not state the ABI version (%s)", path, pattern)
		} else if m[1] != want {
			t.Errorf("%s says ABI %s; the host speaks %s", path, m[1], want)
		}
	}
	// The change table's last row is the current minor version.
	rows := regexp.MustCompile(`(?m)^\| (\d+\.\d+) \|`).FindAllStringSubmatch(readDoc(t, "docs/abi.md"), -1)
	if len(rows) == 0 || rows[len(rows)-1][1] != want {
		t.Errorf("docs/abi.md's versions table ends at %v, want %s", rows, want)
	}
}

// docFlag is a flag in backquotes: `--name ...` or `-v`.
var docFlag = regexp.MustCompile("`(--?[a-z][a-z0-9-]*)")

// flagsOf lists a command's flags, its parents' persistent ones included,
// as they are written on a command line.
func flagsOf(cmd *cobra.Command) []string {
	var out []string
	add := func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		if len(f.Name) == 1 {
			out = append(out, "-"+f.Name)
		} else {
			out = append(out, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	slices.Sort(out)
	return slices.Compact(out)
}

func subcommand(t *testing.T, name string) *cobra.Command {
	t.Helper()
	cmd, _, err := newRootCommand().Find([]string{name})
	if err != nil || cmd.Name() != name {
		t.Fatalf("no subcommand %s: %v", name, err)
	}
	return cmd
}

// Every flag of `caldera run` and `caldera simulate` is documented where
// the docs list their flags, and every flag documented there exists.
func TestDocsListEveryFlag(t *testing.T) {
	for _, tc := range []struct{ command, path, heading string }{
		{"run", "docs/operations.md", "Flags of `caldera run`"},
		{"simulate", "docs/configuration.md", "`caldera simulate` flags"},
	} {
		var documented []string
		for _, m := range docFlag.FindAllStringSubmatch(docSection(t, tc.path, tc.heading), -1) {
			documented = append(documented, m[1])
		}
		slices.Sort(documented)
		documented = slices.Compact(documented)
		flags := flagsOf(subcommand(t, tc.command))
		for _, f := range flags {
			if !slices.Contains(documented, f) {
				t.Errorf("%s, %q: caldera %s's flag %s is not documented", tc.path, tc.heading, tc.command, f)
			}
		}
		for _, f := range documented {
			if !slices.Contains(flags, f) {
				t.Errorf("%s, %q documents %s, which caldera %s does not have", tc.path, tc.heading, f, tc.command)
			}
		}
	}
	// simulate's table gives each flag's environment variable.
	row := regexp.MustCompile("(?m)^\\| `--([a-z-]+)[^|]*\\| `(CALDERA_[A-Z_]+)`")
	for _, m := range row.FindAllStringSubmatch(docSection(t, "docs/configuration.md", "`caldera simulate` flags"), -1) {
		if want := "CALDERA_" + strings.ToUpper(strings.ReplaceAll(m[1], "-", "_")); m[2] != want {
			t.Errorf("docs/configuration.md: --%s is set by %s, not %s", m[1], want, m[2])
		}
	}
}

// metricNames lists the names of the scheduler's own metrics.
func metricNames() []string {
	collectors := append(append(metrics.All(), runtime.Collectors()...), extender.Collectors()...)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	var out []string
	for _, c := range collectors {
		descs := make(chan *prometheus.Desc, 16)
		go func() { c.Describe(descs); close(descs) }()
		for d := range descs {
			if m := fqName.FindStringSubmatch(d.String()); m != nil {
				out = append(out, m[1])
			}
		}
	}
	slices.Sort(out)
	return out
}

// Every metric the scheduler serves is documented, and every caldera_
// metric name the docs give exists.
func TestDocsNameEveryMetric(t *testing.T) {
	names := metricNames()
	if len(names) < 20 {
		t.Fatalf("found only %d metrics: %v", len(names), names)
	}
	inDocs := map[string]bool{}
	name := regexp.MustCompile("`(caldera_[a-z0-9_]+)")
	for _, path := range []string{"README.md", "docs/operations.md", "docs/extender.md", "docs/configuration.md", "docs/plugin-guide.md"} {
		for _, m := range name.FindAllStringSubmatch(readDoc(t, path), -1) {
			n := m[1]
			if strings.HasSuffix(n, "_") {
				continue // a prefix, as in `caldera_queue_deserved_*`
			}
			// A series of a histogram: `..._count`, `..._sum`, `..._bucket`.
			for _, suffix := range []string{"_count", "_sum", "_bucket"} {
				if base, ok := strings.CutSuffix(n, suffix); ok && slices.Contains(names, base) {
					n = base
				}
			}
			if !slices.Contains(names, n) {
				t.Errorf("%s names %s, which is not a metric", path, n)
			}
			inDocs[n] = true
		}
	}
	for _, n := range names {
		if !inDocs[n] {
			t.Errorf("metric %s is not documented", n)
		}
	}
}

// The docs speak of the product as it is: no references to the project's
// issues and no numbered rounds of work (history lives in git).
func TestDocsStateThePresent(t *testing.T) {
	history := regexp.MustCompile(`(?i)\bissue #?\d+|(^|[\s(])#\d+\b|\b(session|round|iteration) \d+ of (the )?work\b|\bin session \d+\b`)
	paths := []string{"README.md", "RATIONALE.md", "scheduler/README.md"}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		paths = append(paths, filepath.Join("docs", filepath.Base(d)))
	}
	for _, path := range paths {
		for i, line := range strings.Split(readDoc(t, path), "\n") {
			if m := history.FindString(line); m != "" {
				t.Errorf("%s:%d: %q reads as history, not the present: %s", path, i+1, m, line)
			}
		}
	}
}

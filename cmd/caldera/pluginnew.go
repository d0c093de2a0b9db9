package main

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// scaffold holds the files `caldera plugin new` writes, with @NAME@,
// @IDENT@, @GOSDK@ and @RUSTSDK@ to fill in.
//
//go:embed scaffold
var scaffold embed.FS

// pluginName is what a plugin may be called: its module file, its tier
// entry, its Go module's last element and its crate's name.
var pluginName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

func newPluginNewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "new NAME --lang go|tinygo|rust",
		Short: "Write a policy module's source, unit test and scenario folder to start from",
		Long: `Writes a policy module that prefers nodes whose CPU is most in use, in Go (for the Go
toolchain or TinyGo) or Rust, with a unit test and a scenario folder that
caldera plugin test runs, into --dir (default ./NAME), and prints how to build and test
it. The module depends on the SDK of a Caldera checkout: --sdk, or the checkout this
caldera binary was built in, or one above the current folder.`,
		Args: cobra.ExactArgs(1),
	}
	f := cmd.Flags()
	f.String("lang", "", "go, tinygo or rust (required)")
	f.String("dir", "", "folder to write (default ./NAME); it must not exist or be empty")
	f.String("sdk", "", "the Caldera checkout whose guest-sdk the module uses (default: found from the binary or the current folder)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		lang, _ := cmd.Flags().GetString("lang")
		dir, _ := cmd.Flags().GetString("dir")
		sdk, _ := cmd.Flags().GetString("sdk")
		return newPlugin(cmd.OutOrStdout(), args[0], lang, dir, sdk)
	}
	return cmd
}

func newPlugin(w io.Writer, name, lang, dir, sdk string) error {
	if !pluginName.MatchString(name) {
		return fmt.Errorf("plugin name %q: expected lower-case letters, digits and dashes, starting with a letter", name)
	}
	if lang != "go" && lang != "tinygo" && lang != "rust" {
		return fmt.Errorf("--lang: expected go, tinygo or rust, got %q", lang)
	}
	if dir == "" {
		dir = name
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("--dir %s: not empty; choose another folder", dir)
	}
	checkout, err := findCheckout(sdk)
	if err != nil {
		return err
	}
	fill := strings.NewReplacer(
		"@NAME@", name,
		"@IDENT@", strings.ReplaceAll(name, "-", "_"),
		"@GOSDK@", filepath.Join(checkout, "guest-sdk", "go"),
		"@RUSTSDK@", filepath.Join(checkout, "guest-sdk", "rust"),
	)
	files := map[string]string{"scenario/cluster.yaml": "", "scenario/scheduler.yaml": "", "scenario/expect.yaml": ""}
	if lang == "rust" {
		files["Cargo.toml"], files["src/lib.rs"] = "", ""
	} else {
		files["go.mod"], files["main.go"], files["main_test.go"] = "", "", ""
	}
	for out := range files {
		src := "scaffold/" + out
		if !strings.HasPrefix(out, "scenario/") {
			src += ".tmpl"
		}
		text, err := fs.ReadFile(scaffold, src)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, out)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(fill.Replace(string(text))), 0o644); err != nil {
			return err
		}
	}
	steps := buildSteps(name, lang, checkout)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(fmt.Sprintf("# %s\n\nA Caldera scheduling policy (%s). Build and test it:\n\n```sh\n%s\n```\n", name, lang, steps)), 0o644); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "wrote %s: a %s policy module, its unit test and scenario/\n\n%s\n", dir, lang, steps)
	return err
}

// buildSteps are the commands that build the module as NAME.wasm in its
// folder and run its test and scenario. cargo is told the target folder:
// the cargo of Caldera's make rust shares one across crates.
func buildSteps(name, lang, checkout string) string {
	const test = "caldera plugin test --plugin-dir . scenario   # binds default/new to half-full"
	switch lang {
	case "rust":
		return fmt.Sprintf("cargo test\ncargo build --release --target wasm32-unknown-unknown --target-dir target\ncp target/wasm32-unknown-unknown/release/%s.wasm %s.wasm\n%s\n# Without rustup, Caldera's make rust sets up Debian's Rust: alias cargo=%s",
			strings.ReplaceAll(name, "-", "_"), name, test, filepath.Join(checkout, ".cache", "rust", "bin", "cargo-wrapped"))
	case "tinygo":
		return fmt.Sprintf("go mod tidy && go test ./...\ntinygo build -target=wasip1 -buildmode=c-shared -scheduler=none -no-debug -opt=2 -o %s.wasm .\n%s\n# Caldera's make tinygo builds TinyGo: alias tinygo=%s",
			name, test, filepath.Join(checkout, ".cache", "tinygo", "bin", "tinygo-wrapped"))
	}
	return fmt.Sprintf("go mod tidy && go test ./...\nGOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o %s.wasm .\n%s", name, test)
}

// findCheckout returns the Caldera checkout holding the guest SDKs: sdk,
// or the first folder above the binary or the current folder that has
// guest-sdk/go/go.mod.
func findCheckout(sdk string) (string, error) {
	has := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "guest-sdk", "go", "go.mod"))
		return err == nil
	}
	if sdk != "" {
		abs, err := filepath.Abs(sdk)
		if err != nil {
			return "", err
		}
		if !has(abs) {
			return "", fmt.Errorf("--sdk %s: no guest-sdk/go/go.mod there; expected a checkout of the Caldera repository", sdk)
		}
		return abs, nil
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if has(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("no Caldera checkout found above the caldera binary or the current folder: pass --sdk /path/to/caldera")
}

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestPluginNewBuildsAndPassesInEveryLanguage does what the plugin guide
// tells a new author to: `caldera plugin new` in a folder outside the
// repository, the printed build commands with the toolchains `make plugins`
// set up (Go, TinyGo, Debian's Rust), the unit test, and `caldera plugin
// test` on the scaffold's scenario, which passes only with the policy.
func TestPluginNewBuildsAndPassesInEveryLanguage(t *testing.T) {
	caldera, err := harness.Require(t).CalderaBinary()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tinygo := filepath.Join(root, ".cache", "tinygo", "bin", "tinygo-wrapped")
	cargo := filepath.Join(root, ".cache", "rust", "bin", "cargo-wrapped")
	goTool := os.Getenv("GO")
	if goTool == "" {
		goTool = "go"
	}
	steps := map[string][][]string{
		"go": {
			{goTool, "mod", "tidy"}, {goTool, "test", "./..."},
			{"env", "GOOS=wasip1", "GOARCH=wasm", goTool, "build", "-buildmode=c-shared", "-o", "pack.wasm", "."},
		},
		"tinygo": {
			{goTool, "mod", "tidy"}, {goTool, "test", "./..."},
			{tinygo, "build", "-target=wasip1", "-buildmode=c-shared", "-scheduler=none", "-no-debug", "-opt=2", "-o", "pack.wasm", "."},
		},
		"rust": {
			{cargo, "test", "-q"}, {cargo, "build", "-q", "--release", "--target", "wasm32-unknown-unknown", "--target-dir", "target"},
			{"cp", "target/wasm32-unknown-unknown/release/pack.wasm", "pack.wasm"},
		},
	}
	// A panic the hook is then given, and what its failure must say: the
	// message, and a frame naming the hook or the dispatch it was inlined
	// into. For Rust, which of the SDK's functions rustc inlines the hook
	// into changes with the SDK's code: any frame of the SDK's Module.
	panics := map[string]struct{ file, after, insert, frame string }{
		"go": {"main.go", "for i, n := range nodes {\n", "if n.Name == \"empty\" {\npanic(\"pack: cannot score \" + n.Name)\n}\n",
			"\tat main.(*plugin).NodeOrderBatch (main.go:"},
		"tinygo": {"main.go", "for i, n := range nodes {\n", "if n.Name == \"empty\" {\npanic(\"pack: cannot score \" + n.Name)\n}\n",
			"nodeOrder$thunk, the SDK's dispatch of the hook, into which the compiler inlined the hook's code"},
		"rust": {"src/lib.rs", "for (n, score) in nodes.iter().zip(scores) {\n", "if n.name == \"empty\" {\npanic!(\"pack: cannot score {}\", n.name);\n}\n",
			"caldera::module::Module<P>"},
	}
	for _, lang := range []string{"go", "tinygo", "rust"} {
		t.Run(lang, func(t *testing.T) {
			if tool := map[string]string{"tinygo": tinygo, "rust": cargo}[lang]; tool != "" {
				if _, err := os.Stat(tool); err != nil {
					if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
						t.Fatalf("%s is missing (make plugins sets it up): %v", tool, err)
					}
					t.Skipf("%s is not set up; run make plugins", tool)
				}
			}
			dir := filepath.Join(t.TempDir(), "pack")
			run := func(name string, args ...string) string {
				t.Helper()
				cmd := exec.Command(name, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			run(caldera, "plugin", "new", "pack", "--lang", lang, "--dir", dir, "--sdk", root)
			for _, step := range steps[lang] {
				run(step[0], step[1:]...)
			}
			out := run(caldera, "plugin", "test", "--wasm-cache-dir", "", "--plugin-dir", dir, filepath.Join(dir, "scenario"))
			if !strings.Contains(out, "1 scenario folder(s): 1 passed, 0 failed") {
				t.Errorf("plugin test of the %s scaffold:\n%s", lang, out)
			}

			p := panics[lang]
			src := filepath.Join(dir, p.file)
			code, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(string(code), p.after)
			if i < 0 {
				t.Fatalf("%s has no %q to add a panic after", src, p.after)
			}
			i += len(p.after)
			if err := os.WriteFile(src, []byte(string(code[:i])+p.insert+string(code[i:])), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, step := range steps[lang] {
				if step[1] != "test" && step[1] != "mod" {
					run(step[0], step[1:]...)
				}
			}
			cmd := exec.Command(caldera, "plugin", "call", "pack.wasm", "node_order_batch", "--cluster", filepath.Join("scenario", "cluster.yaml"))
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			out = string(b)
			// The scheduler's log record of the failure and the command's
			// error: the panic twice, and no line of its own in the log.
			if err == nil || strings.Count(out, "panic: pack: cannot score empty") != 2 || !strings.Contains(out, p.frame) {
				t.Errorf("plugin call of the panicking %s module: %v, want the panic reported once with %q:\n%s", lang, err, p.frame, out)
			}
			t.Logf("%s panic:\n%s", lang, out)
		})
	}
}

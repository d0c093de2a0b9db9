package reload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// A FIFO or a link to /dev/zero named like a module is refused by name and
// does not block the read of the folder: the other modules and the
// configuration are read as usual.
func TestPluginFolderRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte("conf"))
	writeFile(t, filepath.Join(dir, "good.wasm"), []byte("module"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.wasm")); err != nil {
		t.Fatal(err)
	}
	r := &Reloader{opts: Options{ConfigPath: filepath.Join(dir, "scheduler.yaml"), PluginDir: dir}}
	snap := r.readSnapshot()
	if snap.err != nil {
		t.Fatal(snap.err)
	}
	if string(snap.modules["good"].code) != "module" {
		t.Errorf("good.wasm read as %q", snap.modules["good"].code)
	}
	for _, name := range []string{"fifo", "zero"} {
		if err := snap.modules[name].err; !errors.Is(err, regularfile.ErrNotRegular) {
			t.Errorf("%s.wasm: %v, want it refused as not a regular file", name, err)
		}
	}
}

// The sandbox arguments: a misspelt wasm.* key, a memory limit of 0 pages
// and a negative deadline are refused with the argument's name.
func TestSandboxArgumentsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args framework.Arguments
		want string
	}{
		{framework.Arguments{"wasm.callTimout": "2s"}, "unknown sandbox argument wasm.callTimout"},
		{framework.Arguments{"wasm.memoryLimitPages": 0}, "wasm.memoryLimitPages: expected 1 to 65536 pages of 64 KiB, got 0"},
		{framework.Arguments{"wasm.memoryLimitPages": 1e300}, `argument "wasm.memoryLimitPages"`},
		{framework.Arguments{"wasm.callTimeout": "-1s"}, "wasm.callTimeout: -1s is negative"},
	} {
		_, _, err := sandbox("p", tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	opts, _, err := sandbox("p", framework.Arguments{"wasm.memoryLimitPages": 2048, "wasm.callTimeout": "0", "weight": 3})
	if err != nil || opts.Limits.MemoryLimitPages != 2048 || opts.Limits.CallTimeout != 0 {
		t.Errorf("valid arguments: %+v, %v", opts.Limits, err)
	}
}

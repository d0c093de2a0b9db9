package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadsARegularFileThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real.yaml"), []byte("actions: allocate"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	got, err := Read(filepath.Join(dir, "link.yaml"), MaxConfig)
	if err != nil || string(got) != "actions: allocate" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// A FIFO is refused at once (it would block until a writer came), a
// device (/dev/zero never ends) and a directory too, each named.
func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.wasm")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.wasm")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "a named pipe", zero: "a character device", dir: "a directory"} {
		_, err := Read(path, MaxModule)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %s refused by name", path, err, what)
		}
	}
}

func TestRefusesAFileOverItsLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, make([]byte, 1025), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, 1024); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1025 bytes, the limit is 1024") {
		t.Errorf("1025 bytes under a limit of 1024: %v", err)
	}
	if _, err := Read(path, 1025); err != nil {
		t.Errorf("1025 bytes under a limit of 1025: %v", err)
	}
}

package main

import (
	"fmt"
	"os"
	"os/exec"
)

// buildWasm compiles the Go module in srcDir into a reactor module at out
// with the standard Go toolchain (the Go build cache makes reruns fast).
func buildWasm(srcDir, out string, tags ...string) error {
	args := []string{"build", "-buildmode=c-shared", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", tags[0])
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = srcDir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", srcDir, err, b)
	}
	return nil
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCaldera(args ...string) (string, error) {
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestPluginInspectAndValidate(t *testing.T) {
	requirePorts(t, "binpack.tinygo")
	path := filepath.Join(pluginDir, "binpack.tinygo.wasm")
	out, err := runCaldera("plugin", "inspect", path)
	if err != nil || !strings.Contains(out, "name:      binpack") || !strings.Contains(out, "abi:       1.") || !strings.Contains(out, "node_order_batch") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	out, err = runCaldera("plugin", "validate", path)
	if err != nil || !strings.Contains(out, "3 of 3 pods bound") {
		t.Errorf("validate: %v\n%s", err, out)
	}
}

func TestPluginValidateRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "script.wasm")
	_ = os.WriteFile(notWasm, []byte("#!/bin/sh\n"), 0o644)
	for _, tc := range []struct{ path, want string }{
		{notWasm, "not a valid Wasm module"},
		{filepath.Join(dir, "missing.wasm"), "no such file"},
		{filepath.Join(dir, "policy.so"), "expected a .wasm file"},
	} {
		if _, err := runCaldera("plugin", "validate", tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("validate %s: %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

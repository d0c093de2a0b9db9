package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnableEnv must be 1 for the suite to run; plain `go test ./...` skips it.
const EnableEnv = "CALDERA_E2E"

// Enabled reports whether the end-to-end suite was asked for.
func Enabled() bool { return os.Getenv(EnableEnv) == "1" }

// Require skips the test unless the suite is enabled, and fails it when the
// shared cluster did not come up.
func Require(t testing.TB) *Cluster {
	t.Helper()
	if !Enabled() {
		t.Skipf("end-to-end test: set %s=1 (make e2e) to run it", EnableEnv)
	}
	if shared == nil {
		t.Fatal("the e2e cluster is not running (harness.Main must be the package's TestMain)")
	}
	return shared
}

// Config says where the suite finds its binaries and manifests. Each field
// comes from an environment variable, with a default relative to the
// repository root:
//
//	CALDERA_E2E_BIN           etcd, kube-apiserver, kwok   (.cache/e2e/bin)
//	                          (needed by every test), and
//	                          kube-controller-manager and
//	                          Volcano's binaries (by the
//	                          tests that start them)
//	CALDERA_E2E_KWOK_STAGES   kwok stage configuration      (<bin>/../kwok-stages.yaml)
//	CALDERA_E2E_CRDS          Volcano CRD manifests         (deploy/crds)
//	CALDERA_E2E_VOLCANO_CRDS  the CRDs of the Volcano release  (<bin>/../volcano-crds)
//	                          whose vc-controller-manager is in <bin>:
//	                          those deploy/crds lacks (Jobs, Commands, ...)
//	CALDERA_E2E_RBAC          manifest whose ServiceAccount  (deploy/caldera.yaml)
//	                          and RBAC caldera runs with
//	CALDERA_E2E_CALDERA       a prebuilt caldera binary     (built from ./cmd/caldera)
//	CALDERA_E2E_KEEP=1        keep the temporary directory even when all passed
//	CALDERA_E2E_SCHEDULER_ADMIN=1  run caldera as system:masters instead, to
//	                          tell a missing permission from a scheduler bug
type Config struct {
	RepoRoot       string
	BinDir         string
	KwokStages     string
	CRDDir         string
	VolcanoCRDDir  string
	RBACManifest   string
	Caldera        string
	Keep           bool
	SchedulerAdmin bool
}

// ConfigFromEnv reads Config from the environment.
func ConfigFromEnv() (Config, error) {
	root, err := repoRoot()
	if err != nil {
		return Config{}, err
	}
	c := Config{
		RepoRoot:       root,
		BinDir:         envOr("CALDERA_E2E_BIN", filepath.Join(root, ".cache", "e2e", "bin")),
		CRDDir:         envOr("CALDERA_E2E_CRDS", filepath.Join(root, "deploy", "crds")),
		RBACManifest:   envOr("CALDERA_E2E_RBAC", filepath.Join(root, "deploy", "caldera.yaml")),
		Caldera:        os.Getenv("CALDERA_E2E_CALDERA"),
		Keep:           os.Getenv("CALDERA_E2E_KEEP") == "1",
		SchedulerAdmin: os.Getenv("CALDERA_E2E_SCHEDULER_ADMIN") == "1",
	}
	c.KwokStages = envOr("CALDERA_E2E_KWOK_STAGES", filepath.Join(filepath.Dir(c.BinDir), "kwok-stages.yaml"))
	c.VolcanoCRDDir = envOr("CALDERA_E2E_VOLCANO_CRDS", filepath.Join(filepath.Dir(c.BinDir), "volcano-crds"))
	for _, f := range []string{c.bin("etcd"), c.bin("kube-apiserver"), c.bin("kwok"), c.KwokStages, c.CRDDir, c.RBACManifest} {
		if _, err := os.Stat(f); err != nil {
			return Config{}, fmt.Errorf("%w (run `make e2e-tools`, or set CALDERA_E2E_BIN, _KWOK_STAGES, _CRDS, _RBAC)", err)
		}
	}
	return c, nil
}

func (c Config) bin(name string) string { return filepath.Join(c.BinDir, name) }

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// repoRoot is the closest directory at or above the working directory (the
// test's package directory under go test) holding a go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

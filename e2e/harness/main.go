package harness

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// shared is the cluster of the running test binary, set by Main.
var shared *Cluster

// Main is the body of an e2e package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }
//
// Unless the suite is enabled it only runs the tests (which skip). Otherwise
// it starts the cluster, runs the tests and stops every process it started,
// also on SIGINT/SIGTERM. The run's directory is removed after a passing
// run and kept, with its path printed, after a failing one.
func Main(m *testing.M) int {
	if !Enabled() {
		return m.Run()
	}
	cfg, err := ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "caldera-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		fmt.Fprintf(os.Stderr, "e2e: %v: stopping every process started; files in %s\n", s, dir)
		cancel()
		stopAll(5 * time.Second)
		os.Exit(2)
	}()

	began := time.Now()
	c, err := Start(ctx, cfg, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: starting the cluster: %v\nfiles kept in %s\n", err, dir)
		return 1
	}
	defer c.Stop()
	shared = c
	fmt.Fprintf(os.Stderr, "e2e: cluster up in %s at %s; files in %s\n", time.Since(began).Round(time.Millisecond), c.server, dir)
	if c.calderaErr != nil {
		fmt.Fprintf(os.Stderr, "e2e: tests that run the scheduler will fail: %v\n", c.calderaErr)
	}

	code := m.Run()
	c.Stop()
	if code == 0 && !cfg.Keep {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintf(os.Stderr, "e2e: files kept in %s (%s)\n", dir, c.LogPaths())
	}
	return code
}

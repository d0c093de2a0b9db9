package e2e

import (
	"os"
	"testing"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestMain starts one control plane for all the tests (only with
// CALDERA_E2E=1) and stops it when they are done.
func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

package binpack

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The builders come from testutil; these short names keep the tests terse.

func rl(pairs ...string) v1.ResourceList { return testutil.Res(pairs...) }

func node(name string, alloc v1.ResourceList) *v1.Node { return testutil.Node(name, alloc) }

func pod(name, nodeName string, req v1.ResourceList) *v1.Pod {
	return testutil.GroupPod(name, nodeName, req)
}

func taskByName(ssn *framework.Session, name string) *api.TaskInfo {
	return testutil.TaskNamed(ssn, name)
}

// openSession opens a session on one job with this package's plugin
// registered.
func openSession(t testing.TB, cfgYAML string, nodes []*v1.Node, pods []*v1.Pod) *framework.Session {
	t.Helper()
	reg := framework.NewRegistry()
	if err := reg.Register(Name, New); err != nil {
		t.Fatal(err)
	}
	return testutil.OneJobSession(t, reg, cfgYAML, nodes, pods)
}

package nodeorder

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
	// A stand-in named predicates, so that configurations may list it.
	if err := reg.Register("predicates", func(framework.Arguments) (framework.Plugin, error) { return stubPredicates{}, nil }); err != nil {
		t.Fatal(err)
	}
	return testutil.OneJobSession(t, reg, cfgYAML, nodes, pods)
}

type stubPredicates struct{}

func (stubPredicates) Name() string                      { return "predicates" }
func (stubPredicates) OnSessionOpen(*framework.Session)  {}
func (stubPredicates) OnSessionClose(*framework.Session) {}

func withLabels(n *v1.Node, kv ...string) *v1.Node {
	n.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func withTaints(n *v1.Node, taints ...v1.Taint) *v1.Node {
	n.Spec.Taints = taints
	return n
}

func running(p *v1.Pod) *v1.Pod {
	p.Status.Phase = v1.PodRunning
	return p
}

package deviceshare

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/gpushare"
)

func limits(pairs ...string) v1.ResourceRequirements {
	return v1.ResourceRequirements{Limits: testutil.Res(pairs...)}
}

// Volcano v1.15's gpushare/device_info_test.go TestGetGPUMemoryOfPod and
// TestGetGPUNumberOfPod, every case.
func TestPodRequests(t *testing.T) {
	cases := []struct {
		name       string
		init, main []v1.ResourceRequirements
		resource   v1.ResourceName
		want       int64
	}{
		{"GPU memory required only in Containers", nil,
			[]v1.ResourceRequirements{limits(string(GPUMemoryResource), "1000"), limits(string(GPUMemoryResource), "1000")},
			GPUMemoryResource, 2000},
		{"GPU memory required both in initContainers and Containers",
			[]v1.ResourceRequirements{limits(string(GPUMemoryResource), "2000")},
			[]v1.ResourceRequirements{limits(string(GPUMemoryResource), "1000"), limits(string(GPUMemoryResource), "500")},
			GPUMemoryResource, 2000},
		{"GPUs required only in Containers", nil,
			[]v1.ResourceRequirements{limits(string(GPUNumberResource), "1"), limits(string(GPUNumberResource), "3")},
			GPUNumberResource, 4},
		{"GPUs required both in initContainers and Containers",
			[]v1.ResourceRequirements{limits(string(GPUNumberResource), "3"), limits(string(GPUNumberResource), "5")},
			[]v1.ResourceRequirements{limits(string(GPUNumberResource), "1"), limits(string(GPUNumberResource), "2")},
			GPUNumberResource, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &v1.Pod{}
			for _, r := range c.init {
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Resources: r})
			}
			for _, r := range c.main {
				pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Resources: r})
			}
			if got := gpushare.PodLimit(pod, c.resource); got != c.want {
				t.Fatalf("got %d, want %d", got, c.want)
			}
		})
	}
}

// gpuNode has 4 cards of 4000 each.
func gpuNode(name string, unhealthy string) *v1.Node {
	n := testutil.Node(name, testutil.Res("cpu", "16", "memory", "64Gi", "pods", "110", string(GPUMemoryResource), "16000", string(GPUNumberResource), "4"))
	if unhealthy != "" {
		n.Annotations = map[string]string{UnhealthyGPUsAnnotation: unhealthy}
	}
	return n
}

func gpuPod(name, node string, memory, number string, index string) *v1.Pod {
	p := testutil.Pod("ns", name, "pg", node, testutil.Res("cpu", "1"))
	l := v1.ResourceList{}
	if memory != "" {
		l[GPUMemoryResource] = resource.MustParse(memory)
	}
	if number != "" {
		l[GPUNumberResource] = resource.MustParse(number)
	}
	p.Spec.Containers[0].Resources.Limits = l
	if index != "" {
		p.Annotations[GPUIndexAnnotation] = index
	}
	return p
}

func open(t *testing.T, args string, nodes []*v1.Node, pods ...*v1.Pod) (*framework.Session, *Plugin) {
	t.Helper()
	c := testutil.Cluster{
		Queues:    []*v1beta1.Queue{testutil.Queue("q", 1)},
		PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("ns", "pg", "q", 1, v1beta1.PodGroupInqueue)},
		Nodes:     nodes,
		Pods:      pods,
	}
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	ssn, _ := testutil.Open(t, c, registry, testutil.Tier(Name)+"    arguments:\n"+args)
	return ssn, testutil.Instance[*Plugin](t, ssn)
}

const sharing = "      deviceshare.GPUSharingEnable: true\n"
const numbers = "      deviceshare.GPUNumberEnable: true\n"

func TestSharingTakesTheFirstCardWithRoom(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Unix(0, 42) }
	// Card 0 has 1000 free, card 1 3000, cards 2 and 3 are unhealthy.
	ssn, p := open(t, sharing, []*v1.Node{gpuNode("n1", "2,3")},
		gpuPod("a", "n1", "3000", "", "0"), gpuPod("b", "n1", "1000", "", "1"),
		gpuPod("big", "", "3000", "", ""), gpuPod("huge", "", "3500", "", ""))
	n1 := ssn.Nodes["n1"]
	if st := p.Predicate(testutil.Task(t, ssn, "ns/huge"), n1); st.IsSuccess() || st.Message() != "GpuShare no enough gpu memory on node n1" {
		t.Fatalf("huge: %v, want no room", st)
	}
	big := testutil.Task(t, ssn, "ns/big")
	if st := p.Predicate(big, n1); !st.IsSuccess() {
		t.Fatalf("big: %v", st)
	}
	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(big, n1); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{GPUIndexAnnotation: "1", PredicateTimeAnnotation: "42"}
	if got := big.BindAnnotations; len(got) != 2 || got[GPUIndexAnnotation] != "1" || got[PredicateTimeAnnotation] != "42" {
		t.Fatalf("annotations %v, want %v", got, want)
	}
	// Card 1 is now full: another 3000 fits nowhere.
	if st := p.Predicate(big, n1); st.IsSuccess() {
		t.Fatal("card 1 still has room after big took it")
	}
	stmt.Discard()
	if big.BindAnnotations != nil {
		t.Fatalf("annotations after the discard: %v", big.BindAnnotations)
	}
	if st := p.Predicate(big, n1); !st.IsSuccess() {
		t.Fatalf("after the discard: %v", st)
	}
}

func TestNumbersTakeIdleCards(t *testing.T) {
	// Card 0 is held by a running pod: cards 1 to 3 are idle.
	ssn, p := open(t, numbers, []*v1.Node{gpuNode("n1", "")},
		gpuPod("a", "n1", "", "1", "0"), gpuPod("two", "", "", "2", ""), gpuPod("four", "", "", "4", ""))
	n1 := ssn.Nodes["n1"]
	if st := p.Predicate(testutil.Task(t, ssn, "ns/four"), n1); st.IsSuccess() || st.Message() != "GpuNumber no enough gpu number on node n1" {
		t.Fatalf("four: %v", st)
	}
	two := testutil.Task(t, ssn, "ns/two")
	if err := framework.NewStatement(ssn).Allocate(two, n1); err != nil {
		t.Fatal(err)
	}
	if got := two.BindAnnotations[GPUIndexAnnotation]; got != "1,2" {
		t.Fatalf("gpu-index %q, want 1,2", got)
	}
}

func TestNodesWithoutCardsAndPodsWithoutRequestsPass(t *testing.T) {
	plain := testutil.Node("plain", testutil.Res("cpu", "16", "pods", "110"))
	ssn, p := open(t, sharing, []*v1.Node{plain, gpuNode("n1", "")}, gpuPod("g", "", "1000", "", ""), testutil.Pod("ns", "cpu", "pg", "", testutil.Res("cpu", "1")))
	if st := p.Predicate(testutil.Task(t, ssn, "ns/g"), ssn.Nodes["plain"]); !st.IsSuccess() {
		t.Fatalf("node without cards: %v", st)
	}
	cpu := testutil.Task(t, ssn, "ns/cpu")
	if err := framework.NewStatement(ssn).Allocate(cpu, ssn.Nodes["n1"]); err != nil {
		t.Fatal(err)
	}
	if cpu.BindAnnotations != nil {
		t.Fatalf("a pod without a GPU request got %v", cpu.BindAnnotations)
	}
}

func TestArguments(t *testing.T) {
	refused := map[string]framework.Arguments{
		"both kinds":      {GPUSharingKey: true, GPUNumberKey: true},
		"vgpu":            {VGPUKey: true},
		"node lock":       {GPUSharingKey: true, NodeLockKey: true},
		"ascend":          {HAMiVNPUKey: true},
		"exclusive rules": {ExclusiveRulesKey: []any{map[string]any{"team": "a"}}},
		"policy":          {SchedulePolicyKey: "random"},
		"unknown":         {"deviceshare.GPUShareEnable": true},
	}
	for name, a := range refused {
		if _, err := New(a); err == nil {
			t.Errorf("%s: accepted", name)
		} else if name == "vgpu" && !strings.Contains(err.Error(), "not implemented") {
			t.Errorf("vgpu: %v", err)
		}
	}
	if _, err := New(framework.Arguments{GPUNumberKey: true, VGPUKey: false, SchedulePolicyKey: "binpack", ScheduleWeightKey: 10,
		GeometriesNameKey: "volcano-vgpu-device-config"}); err != nil {
		t.Fatal(err)
	}
}

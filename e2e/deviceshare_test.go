package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestDeviceShareAnnotatesGPUAtBind: one node with two GPUs of 8000
// (volcano.sh/gpu-memory 16000 over volcano.sh/gpu-number 2). Two pods
// asking 6000 of GPU memory each are bound one after the other, each
// annotated with its own card (volcano.sh/gpu-index 0, then 1) and a
// predicate time; a third asking 3000 stays pending with deviceshare's
// reason, though the node's 4000 left in all would hold it. The same holds
// with the TinyGo port of deviceshare loaded in its place, which names the
// cards through the allocate hook (ABI 1.12).
func TestDeviceShareAnnotatesGPUAtBind(t *testing.T) {
	t.Run("native", func(t *testing.T) { testDeviceShare(t, schedulerConf(t, "deviceshare.yaml")) })
	t.Run("tinygo-port", func(t *testing.T) {
		plugins := requirePlugins(t, "deviceshare.tinygo")
		testDeviceShare(t, schedulerConf(t, "wasm-deviceshare.yaml"), "--plugin-dir="+plugins)
	})
}

func testDeviceShare(t *testing.T, schedulerArgs ...string) {
	tc := harness.NewTest(t)
	tc.StartScheduler(schedulerArgs...)
	tc.CreateNodes(1, harness.NodeSpec{CPU: "8", Memory: "32Gi", Pods: 110, Extended: v1.ResourceList{
		"volcano.sh/gpu-memory": resource.MustParse("16000"), "volcano.sh/gpu-number": resource.MustParse("2")}})

	gpuJob := func(name, memory string) {
		tc.CreatePodGroup(name, v1beta1.PodGroupSpec{MinMember: 1, Queue: "default"})
		tc.CreatePods(harness.Pods{Prefix: name, Count: 1, CPU: "1", PodGroup: name,
			Limits: v1.ResourceList{"volcano.sh/gpu-memory": resource.MustParse(memory)}})
	}
	for i, want := range []string{"0", "1"} {
		name := fmt.Sprintf("gpu%d", i)
		gpuJob(name, "6000")
		waitPods(t, tc, name, 1, harness.Bound, "bound")
		pod := tc.ListPods(name)[0]
		if got := pod.Annotations["volcano.sh/gpu-index"]; got != want {
			t.Errorf("%s: volcano.sh/gpu-index %q, want %q", pod.Name, got, want)
		}
		if _, err := strconv.ParseInt(pod.Annotations["volcano.sh/predicate-time"], 10, 64); err != nil {
			t.Errorf("%s: volcano.sh/predicate-time %q is not Unix nanoseconds", pod.Name, pod.Annotations["volcano.sh/predicate-time"])
		}
	}

	gpuJob("small", "3000")
	harness.Eventually(t, timeout, func() (bool, string) {
		pod := tc.ListPods("small")[0]
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && strings.Contains(c.Message, "GpuShare no enough gpu memory") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("small is on %q with conditions %v, want it pending for GPU memory", pod.Spec.NodeName, pod.Status.Conditions)
	})
	if n := tc.CountPods("small", harness.Bound); n != 0 {
		t.Errorf("small was bound")
	}
}

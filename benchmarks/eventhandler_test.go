package benchmarks

import (
	"context"
	"os"
	"testing"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	vcfake "volcano.sh/apis/pkg/client/clientset/versioned/fake"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// BenchmarkInitialSync measures a cache's start: informers listing 5,000
// nodes (every fourth annotated caldera.sh/external-reserved) and 10,000
// pods in 1,000 PodGroups from fake clientsets, every event through the
// event handler, until the cache has synced. "default" records events as
// they come; the others put the example handler external-reserved, built
// by each toolchain, in front of it, with the default 1 s deadline per call
// and with the deadline off (the loop checks stay). Compare with benchstat; events/s
// counts every object the informers delivered.
func BenchmarkInitialSync(b *testing.B) {
	w := Workload{Nodes: 5000, Gangs: 1000, GangSize: 10}
	kubeObjs, vcObjs := syncObjects(w)
	for _, c := range []struct {
		impl     string
		deadline bool
	}{
		{"default", true},
		{"external-reserved.tinygo", true}, {"external-reserved.go", true}, {"external-reserved.rust", true},
		{"external-reserved.tinygo", false}, {"external-reserved.go", false}, {"external-reserved.rust", false},
	} {
		impl, name := c.impl, c.impl
		if !c.deadline {
			name += ",no-deadline"
		}
		b.Run(w.Name()+"/"+name, func(b *testing.B) {
			reg := cache.NewRegistry()
			if impl != "default" {
				path := "../build/plugins/" + impl + ".wasm"
				if _, err := os.Stat(path); err != nil {
					b.Skipf("%s is not built (make plugins)", path)
				}
				limits := runtime.DefaultLimits()
				if !c.deadline {
					limits.CallTimeout = 0
				}
				p, err := runtime.Load(context.Background(), path, runtime.Options{Name: impl, Limits: limits})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close(context.Background())
				reg.RegisterHandler(impl, func(hc cache.HandlerContext) (cache.EventHandler, error) {
					return runtime.NewEventHandler(p, impl, runtime.HandlerConfig{FailurePolicy: runtime.FailureIgnore}, hc.Default)
				})
			}
			kube := k8sfake.NewSimpleClientset(kubeObjs...)
			vc := vcfake.NewSimpleClientset(vcObjs...)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				syncOnce(b, kube, vc, reg, impl)
			}
			events := len(kubeObjs) + len(vcObjs)
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func syncOnce(b *testing.B, kube *k8sfake.Clientset, vc *vcfake.Clientset, reg *cache.Registry, handler string) {
	c, err := cache.New(cache.Options{Client: kube, VCClient: vc, Registry: reg, EventHandler: handler})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		b.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("the cache did not sync")
	}
	if handler != "default" {
		// Every fourth node gave up 2 CPUs: the handler was there.
		if got := c.Snapshot().Nodes["node-00000"].Allocatable.MilliCPU; got != 30000 {
			b.Fatalf("node-00000 has %v milli-CPU allocatable, want 30000", got)
		}
	}
}

// syncObjects are the workload's API objects; every fourth node carries a
// reservation annotation.
func syncObjects(w Workload) (kube, vc []k8sruntime.Object) {
	c := w.Cluster()
	for i, name := range c.NodeList {
		n := c.Nodes[name].Node.DeepCopy()
		if i%4 == 0 {
			n.Annotations = map[string]string{"caldera.sh/external-reserved": "cpu=2,memory=4Gi"}
		}
		kube = append(kube, n)
	}
	for _, j := range c.Jobs {
		vc = append(vc, j.PodGroup.DeepCopy())
		for _, t := range j.Tasks {
			kube = append(kube, t.Pod.DeepCopy())
		}
	}
	for _, q := range c.Queues {
		vc = append(vc, q.Queue.DeepCopy())
	}
	return kube, vc
}

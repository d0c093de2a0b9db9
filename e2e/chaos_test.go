package e2e

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
)

// The chaos workload: gangs of chaosGangSize pods of 1 cpu, all of which
// fit at once on the nodes.
const (
	chaosGangs    = 200
	chaosGangSize = 10
	chaosPods     = chaosGangs * chaosGangSize
	chaosTimeout  = 5 * time.Minute
)

// TestChaos: two replicas under leader election schedule 2,000 pods in
// gangs of 10 while kube-apiserver restarts twice, the leader is killed
// once (and a new replica started in its place), and plugin "policy" is
// swapped through the ConfigMap volume every
// 2 s, between the three builds of binpack and two broken modules. Every
// pod ends bound, none twice; no gang is left partly bound; and more swaps
// after the storm leave the survivor's goroutines and module instances
// where they were.
func TestChaos(t *testing.T) {
	good := [][]byte{builtModule(t, "binpack.tinygo"), builtModule(t, "binpack.go"), builtModule(t, "binpack.rust")}
	broken := [][]byte{[]byte("not a module"), good[0][:len(good[0])/2]}
	tc := harness.NewTest(t)
	tc.CreateNodes(40, harness.NodeSpec{CPU: "64", Memory: "256Gi", Pods: 110})
	leases := tc.Kube.CoordinationV1().Leases(leaseNamespace)
	t.Cleanup(func() { _ = leases.Delete(tc.Ctx, leaseName, metav1.DeleteOptions{}) })

	volume := reloadtest.NewConfigMapVolume(t, t.TempDir())
	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": good[0]})
	replica := func() *harness.Scheduler {
		// Volcano's lease durations, which outlast an apiserver restart
		// (a replica that cannot renew in time exits, as vc-scheduler
		// does, for its Deployment to restart it); throttled, so that
		// binding takes a minute and each disruption lands mid-way.
		args := append(leaderArgsWith(15*time.Second, 10*time.Second, 2*time.Second), throttled...)
		return tc.StartScheduler(append(args,
			"--scheduler-conf="+filepath.Join(volume.Dir(), "volcano-scheduler.conf"),
			"--wasm-cache-dir="+t.TempDir())...)
	}
	a, b := replica(), replica()
	leader, standby := a, b
	harness.Eventually(t, timeout, func() (bool, string) {
		switch {
		case a.LogLines("Leading: scheduling starts") > 0:
			leader, standby = a, b
		case b.LogLines("Leading: scheduling starts") > 0:
			leader, standby = b, a
		default:
			return false, "no replica leads"
		}
		return true, ""
	})
	rec := tc.RecordBindings()

	swaps := startSwapping(t, volume, good, broken, 2*time.Second)
	createGangs(tc, "chaos", chaosGangs, chaosGangSize, "default", "1")

	waitSomeBound(t, rec, chaosPods/5)
	restartAPIServer(t, tc, rec)
	waitSomeBound(t, rec, 2*chaosPods/5)
	leader.Kill()
	t.Logf("killed the leader %s with %d of %d pods bound", leader.Name, rec.BoundCount(), chaosPods)
	// A replica started on a broken module refuses to start (there is no
	// good version yet to keep serving), and its Deployment would retry
	// until the volume held a good one: start it during a pause in the
	// swaps.
	swaps.stop()
	swapped := swaps.count()
	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": good[0]})
	replacement := replica()
	swaps = startSwapping(t, volume, good, broken, 2*time.Second)
	var survivor *harness.Scheduler // whichever takes the Lease over
	harness.Eventually(t, timeout, func() (bool, string) {
		for _, s := range []*harness.Scheduler{standby, replacement} {
			if s.LogLines("Leading: scheduling starts") > 0 {
				survivor = s
				return true, ""
			}
		}
		return false, "no replica has taken the Lease over"
	})
	t.Logf("%s took the Lease over", survivor.Name)
	waitSomeBound(t, rec, 3*chaosPods/5)
	restartAPIServer(t, tc, rec)

	harness.Eventually(t, chaosTimeout, func() (bool, string) {
		n := tc.CountPods("chaos", harness.Bound)
		return n == chaosPods, fmt.Sprintf("%d of %d pods bound", n, chaosPods)
	})
	t.Logf("all %d pods bound; %d module swaps so far", chaosPods, swapped+1+swaps.count())
	for _, s := range []*harness.Scheduler{standby, replacement} {
		if s.Exited() {
			t.Fatalf("%s exited", s.Name)
		}
	}
	checkGangsWhole(t, tc, "chaos")
	if v := rec.Violations(); len(v) != 0 {
		t.Errorf("%d pods were bound twice, e.g. %s", len(v), v[0])
	}

	// More swaps, and a few gangs scheduled meanwhile, must not leave more
	// goroutines or instances behind than the storm did.
	swaps.stop()
	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": good[0]})
	settled := settledMetrics(t, survivor)
	more := startSwapping(t, volume, good, broken, 500*time.Millisecond)
	createGangs(tc, "after", 5, chaosGangSize, "default", "1")
	waitPods(t, tc, "after", 5*chaosGangSize, harness.Bound, "bound")
	for more.count() < 20 {
		time.Sleep(100 * time.Millisecond)
	}
	more.stop()
	volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": good[0]})
	final := settledMetrics(t, survivor)
	t.Logf("%s after the storm: %v goroutines, %v instances; after 20 more swaps: %v, %v",
		survivor.Name, settled["go_goroutines"], settled["caldera_wasm_instances"], final["go_goroutines"], final["caldera_wasm_instances"])
	reloaded := settled[`caldera_plugin_reloads_total{plugin="policy",result="succeeded"}`]
	refused := settled[`caldera_plugin_reloads_total{plugin="policy",result="failed"}`]
	t.Logf("%s: policy reloaded %v times, %v reloads refused", survivor.Name, reloaded, refused)
	if reloaded == 0 || refused == 0 {
		t.Errorf("%s reloaded plugin policy %v times and refused %v reloads, want both", survivor.Name, reloaded, refused)
	}
	if final["caldera_wasm_instances"] > settled["caldera_wasm_instances"] {
		t.Errorf("module instances grew from %v to %v over 20 swaps", settled["caldera_wasm_instances"], final["caldera_wasm_instances"])
	}
	if final["go_goroutines"] > settled["go_goroutines"]+10 {
		t.Errorf("goroutines grew from %v to %v over 20 swaps", settled["go_goroutines"], final["go_goroutines"])
	}
}

// swapper writes plugin "policy"'s module into the volume at each tick,
// cycling through good and broken ones.
type swapper struct {
	n    atomic.Int64
	done chan struct{}
	wg   sync.WaitGroup
}

func startSwapping(t *testing.T, volume *reloadtest.ConfigMapVolume, good, broken [][]byte, every time.Duration) *swapper {
	cycle := [][]byte{good[1], broken[0], good[2], broken[1], good[0]}
	s := &swapper{done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-s.done:
				return
			case <-tick.C:
			}
			volume.Update(map[string][]byte{"volcano-scheduler.conf": []byte(hotReloadConf), "policy.wasm": cycle[i%len(cycle)]})
			s.n.Add(1)
		}
	}()
	t.Cleanup(s.stop)
	return s
}

func (s *swapper) count() int64 { return s.n.Load() }

func (s *swapper) stop() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.wg.Wait()
}

// restartAPIServer restarts kube-apiserver and says how far binding was.
func restartAPIServer(t *testing.T, tc *harness.Test, rec *harness.BindingRecorder) {
	t.Helper()
	began := time.Now()
	if err := tc.Cluster().RestartAPIServer(tc.Ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted in %s, %d of %d pods bound by then", time.Since(began).Round(time.Millisecond), rec.BoundCount(), chaosPods)
}

// checkGangsWhole fails the test for each gang of the set whose pods are
// neither all bound nor all pending.
func checkGangsWhole(t *testing.T, tc *harness.Test, set string) {
	t.Helper()
	bound, all := map[string]int{}, map[string]int{}
	for _, p := range tc.ListPods(set) {
		g := p.Annotations[v1beta1.KubeGroupNameAnnotationKey]
		all[g]++
		if harness.Bound(&p) {
			bound[g]++
		}
	}
	partial := 0
	for g, n := range all {
		if bound[g] != 0 && bound[g] != n {
			partial++
			t.Errorf("gang %s: %d of %d pods bound", g, bound[g], n)
		}
	}
	t.Logf("%d gangs, %d partly bound", len(all), partial)
}

// settledMetrics reads the scheduler's /metrics once its goroutine count
// has stopped moving: three readings 2 s apart within two of each other.
func settledMetrics(t *testing.T, s *harness.Scheduler) map[string]float64 {
	t.Helper()
	var last []float64
	var m map[string]float64
	harness.Eventually(t, timeout, func() (bool, string) {
		var err error
		m, err = harness.ReadMetrics(s.MetricsURL+"/metrics", 10*time.Second)
		if err != nil {
			return false, err.Error()
		}
		last = append(last, m["go_goroutines"])
		if len(last) > 3 {
			last = last[1:]
		}
		time.Sleep(2 * time.Second)
		return len(last) == 3 && max(last[0], last[1], last[2])-min(last[0], last[1], last[2]) <= 2,
			fmt.Sprintf("goroutines %v", last)
	})
	return m
}

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// The Lease deploy/caldera.yaml lets the scheduler use: its Role grants
// get and update of this one name in this namespace.
const (
	leaseNamespace = "caldera-system"
	leaseName      = "caldera" // --leader-elect-resource-name's default
)

// leaderArgs are the flags of a replica in the test: the deployment's, with
// short durations so that a takeover needs seconds, not the default 15.
func leaderArgs() []string {
	return leaderArgsWith(4*time.Second, 3*time.Second, 500*time.Millisecond)
}

// leaderArgsWith are a replica's flags with the given lease durations.
func leaderArgsWith(lease, renew, retry time.Duration) []string {
	return []string{
		"--leader-elect=true",
		"--lock-object-namespace=" + leaseNamespace,
		"--leader-elect-lease-duration=" + lease.String(),
		"--leader-elect-renew-deadline=" + renew.String(),
		"--leader-elect-retry-period=" + retry.String(),
	}
}

// TestLeaderElection: a replica that does not hold the Lease schedules
// nothing; the leader schedules; when the leader is killed, the standby
// takes the Lease over and schedules; a replica stopped with SIGTERM
// releases the Lease.
func TestLeaderElection(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	leases := tc.Kube.CoordinationV1().Leases(leaseNamespace)
	t.Cleanup(func() { _ = leases.Delete(tc.Ctx, leaseName, metav1.DeleteOptions{}) })
	holder := func() string {
		l, err := leases.Get(tc.Ctx, leaseName, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}

	// 1. Someone else holds the Lease and keeps renewing it: the replica
	// stands by, ready but not scheduling.
	stopImpostor := holdLease(t, tc, "e2e-impostor")
	a := tc.StartScheduler(leaderArgs()...)
	tc.CreatePods(harness.Pods{Prefix: "p1", Count: 1, CPU: "1"})
	harness.Consistently(t, 5*time.Second, func() (bool, string) {
		n := tc.CountPods("p1", harness.Bound)
		return n == 0 && holder() == "e2e-impostor", fmt.Sprintf("%d pods bound by a standby, Lease holder %q", n, holder())
	})

	// 2. The impostor stops renewing: the replica takes over and schedules.
	stopImpostor()
	harness.Eventually(t, timeout, func() (bool, string) {
		h := holder()
		return h != "" && h != "e2e-impostor", fmt.Sprintf("Lease holder %q", h)
	})
	leaderA := holder()
	waitPods(t, tc, "p1", 1, harness.Bound, "bound")

	// 3. A second replica stands by while the first keeps leading.
	b := tc.StartScheduler(leaderArgs()...)
	tc.CreatePods(harness.Pods{Prefix: "p2", Count: 1, CPU: "1"})
	waitPods(t, tc, "p2", 1, harness.Bound, "bound")
	if h := holder(); h != leaderA {
		t.Fatalf("Lease holder changed from %q to %q while the leader ran", leaderA, h)
	}

	// 4. The leader dies without releasing the Lease: the standby takes over
	// once it expires, and schedules new pods.
	a.Kill()
	harness.Eventually(t, timeout, func() (bool, string) {
		h := holder()
		return h != "" && h != leaderA, fmt.Sprintf("Lease holder %q, want the standby's", h)
	})
	t.Logf("Lease moved from %q to %q", leaderA, holder())
	tc.CreatePods(harness.Pods{Prefix: "p3", Count: 1, CPU: "1"})
	waitPods(t, tc, "p3", 1, harness.Bound, "bound")

	// 5. SIGTERM: the leader exits cleanly and gives the Lease up.
	if err := b.Stop(); err != nil {
		t.Fatalf("%s: %v", b.Name, err)
	}
	if h := holder(); h != "" {
		t.Errorf("Lease still held by %q after its holder stopped on SIGTERM", h)
	}
}

// holdLease creates the Lease for identity and renews it every 500 ms until
// the returned function is called.
func holdLease(t *testing.T, tc *harness.Test, identity string) (stop func()) {
	t.Helper()
	leases := tc.Kube.CoordinationV1().Leases(leaseNamespace)
	now := metav1.NewMicroTime(time.Now())
	leaseSeconds := int32(4)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: leaseName, Namespace: leaseNamespace},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       &identity,
			LeaseDurationSeconds: &leaseSeconds,
			AcquireTime:          &now,
			RenewTime:            &now,
		},
	}
	if _, err := leases.Create(tc.Ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Lease: %v", err)
	}
	ctx, cancel := context.WithCancel(tc.Ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			l, err := leases.Get(ctx, leaseName, metav1.GetOptions{})
			if err != nil {
				continue
			}
			if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != identity {
				t.Errorf("Lease taken from %s while it renewed it: holder %v", identity, l.Spec.HolderIdentity)
				return
			}
			renewed := metav1.NewMicroTime(time.Now())
			l.Spec.RenewTime = &renewed
			if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) && ctx.Err() == nil {
				t.Errorf("renewing Lease: %v", err)
			}
		}
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

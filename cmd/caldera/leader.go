package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// leaderElection is the configuration of the Lease that keeps one replica
// scheduling at a time.
type leaderElection struct {
	enabled                                   bool
	namespace, name                           string
	leaseDuration, renewDeadline, retryPeriod time.Duration
}

// addLeaderElectionFlags adds the flags kube-scheduler and Volcano's
// vc-scheduler use for the same purpose.
func addLeaderElectionFlags(f *pflag.FlagSet) {
	f.Bool("leader-elect", false, "run only while holding the leader Lease, so that replicas stand by")
	f.String("lock-object-namespace", defaultLockNamespace, "namespace of the leader Lease")
	f.String("leader-elect-resource-namespace", "", "namespace of the leader Lease (overrides --lock-object-namespace)")
	f.String("leader-elect-resource-name", "caldera", "name of the leader Lease")
	f.String("leader-elect-resource-lock", "leases", "kind of lock object; only leases is supported")
	f.Duration("leader-elect-lease-duration", 15*time.Second, "how long a standby waits after the last renewal before taking over")
	f.Duration("leader-elect-renew-deadline", 10*time.Second, "how long the leader tries to renew before giving up")
	f.Duration("leader-elect-retry-period", 2*time.Second, "time between attempts to acquire or renew the Lease")
}

func readLeaderElection(v *viper.Viper) (leaderElection, error) {
	le := leaderElection{
		enabled:       v.GetBool("leader-elect"),
		namespace:     v.GetString("lock-object-namespace"),
		name:          v.GetString("leader-elect-resource-name"),
		leaseDuration: v.GetDuration("leader-elect-lease-duration"),
		renewDeadline: v.GetDuration("leader-elect-renew-deadline"),
		retryPeriod:   v.GetDuration("leader-elect-retry-period"),
	}
	if ns := v.GetString("leader-elect-resource-namespace"); ns != "" {
		le.namespace = ns
	}
	if lock := v.GetString("leader-elect-resource-lock"); lock != "leases" {
		return le, fmt.Errorf("--leader-elect-resource-lock: only leases is supported, got %q", lock)
	}
	if !le.enabled {
		return le, nil
	}
	// client-go's own rule, checked here so that a bad setting fails at
	// start rather than after the informers synced.
	if !(le.leaseDuration > le.renewDeadline && float64(le.renewDeadline) > leaderelection.JitterFactor*float64(le.retryPeriod) && le.retryPeriod > 0) {
		return le, fmt.Errorf("leader election: expected lease duration (%s) > renew deadline (%s) > %.1f × retry period (%s) > 0",
			le.leaseDuration, le.renewDeadline, leaderelection.JitterFactor, le.retryPeriod)
	}
	return le, nil
}

// runAsLeader runs schedule while this replica holds the Lease, and returns
// once schedule has returned. Cancelling ctx stops scheduling between
// sessions; the Lease is released only once schedule has returned (run's
// schedule first waits for the binds its last session sent), so that a
// standby never starts while this replica's last session is still deciding
// or its binds are still on their way. Losing the Lease while still running
// is an error: another replica may already be scheduling, so lost is called
// at once (run fences its cache: nothing more it decided is sent), and the
// process exits for its supervisor to restart it as a standby.
func runAsLeader(ctx context.Context, kube kubernetes.Interface, le leaderElection, schedule func(context.Context), lost func()) error {
	host, _ := os.Hostname()
	id := host + "_" + string(uuid.NewUUID())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.namespace, Name: le.name},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	// The elector has its own context: it must keep renewing until the
	// last session has finished, after ctx is already done.
	electorCtx, stopElector := context.WithCancel(context.Background())
	defer stopElector()
	var started atomic.Bool
	finished := make(chan struct{})
	wasLost := make(chan struct{})
	go func() {
		<-ctx.Done()
		if !started.Load() {
			stopElector()
		}
	}()
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.leaseDuration,
		RenewDeadline:   le.renewDeadline,
		RetryPeriod:     le.retryPeriod,
		ReleaseOnCancel: true,
		Name:            "caldera",
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				started.Store(true)
				defer close(finished)
				defer stopElector()
				klog.InfoS("Leading: scheduling starts", "identity", id, "lease", le.namespace+"/"+le.name)
				// Stop when asked to, or at once when the Lease is lost.
				loopCtx, stopLoop := context.WithCancel(leading)
				defer stopLoop()
				go func() {
					select {
					case <-ctx.Done():
						stopLoop()
					case <-loopCtx.Done():
					}
				}()
				schedule(loopCtx)
			},
			OnStoppedLeading: func() {
				if started.Load() && ctx.Err() == nil {
					lost()
					close(wasLost)
				}
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					klog.InfoS("Standing by", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	elector.Run(electorCtx)
	if started.Load() {
		<-finished
	}
	select {
	case <-wasLost:
		return fmt.Errorf("lost the leader Lease %s/%s", le.namespace, le.name)
	default:
		return nil
	}
}

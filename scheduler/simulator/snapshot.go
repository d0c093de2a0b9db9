package simulator

import (
	"context"
	"fmt"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// Snapshot loads the cluster into an embedded API server, syncs a cache
// on it as Run does, and returns the snapshot a first session would open
// on: for tools that run one session of their own on a cluster file
// (`caldera plugin validate --cluster`). Nothing is bound through it.
func Snapshot(ctx context.Context, c *Cluster, schedulerNames []string) (*api.ClusterInfo, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cluster, err := newEmbedded(c)
	if err != nil {
		return nil, err
	}
	cc, err := cache.New(cache.Options{
		Client:         cluster.kube,
		VCClient:       cluster.vc,
		SchedulerNames: schedulerNames,
		Binder:         cache.APIBinder{Client: cluster.kube},
		Evictor:        cache.APIEvictor{Client: cluster.kube},
	})
	if err != nil {
		return nil, err
	}
	if err := cc.Run(ctx); err != nil {
		return nil, err
	}
	if !cc.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("simulator: informers did not sync")
	}
	if err := cluster.waitForWatches(ctx, catchUpTimeout); err != nil {
		return nil, err
	}
	if err := waitForPods(ctx, cc, cluster); err != nil {
		return nil, err
	}
	return cc.Snapshot(), nil
}

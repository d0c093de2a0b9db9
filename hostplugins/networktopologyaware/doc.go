// Package networktopologyaware is the native "network-topology-aware"
// plugin, after Volcano v1.15's (pkg/scheduler/plugins/network-topology-aware):
//
//   - HyperNodeGradient: for a job in hard mode, the hypernodes within the
//     given one, grouped by tier lowest first, of at most the job's highest
//     allowed tier and with idle (or soon idle) room for its minResources;
//     once the job holds tasks the room check is skipped and the search is
//     confined to the highest hypernode above its placement that the tier
//     allows. Within a tier the hypernodes come in name order.
//   - HyperNodeOrder: how full a hypernode would be with all the job's tasks
//     in it, averaged over the binpack resources by weight (0 when they do
//     not fit); among the best, the share of the job's tasks already there
//     breaks ties. Scores are 0..100 times weight.
//   - BatchNodeOrder: for a job with a network topology, nodes whose lowest
//     hypernode is closest (in tiers) to what the job placed so far score
//     higher; for other pods, with hypernode.binpack.normal-pod.enable, each
//     tier's hypernode binpack score of the pod, tier t weighted by
//     fading^(t-1).
//   - The allocate and deallocate events keep each hypernode's used
//     resources current within the session.
//
// For gangpreempt and gangreclaim (purpose evict) the gradient lists the
// widest hypernodes first, judges room by allocatable rather than idle
// resources, and keeps at most hypernode.gradient.evict.max-hypernodes.
package networktopologyaware

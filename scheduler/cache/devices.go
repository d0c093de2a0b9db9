package cache

import (
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/dra"
)

// deviceInformers are the informers of what the dynamic resource
// allocation filter reads: resource.k8s.io/v1beta1 ResourceClaims,
// ResourceSlices and DeviceClasses.
func (c *Cache) deviceInformers() []cache.SharedIndexInformer {
	r := c.informers.Resource().V1beta1()
	return []cache.SharedIndexInformer{
		r.ResourceClaims().Informer(),
		r.ResourceSlices().Informer(),
		r.DeviceClasses().Informer(),
	}
}

// assumeClaims records the claims a bind in flight allocates or reserves,
// as it will write them, so that the next sessions count their devices
// before the informer shows them. Callers hold mu.
func (c *Cache) assumeClaims(task api.TaskID, pod podRef, alloc *dra.Allocation) {
	if alloc == nil || c.opts.WithoutDRA {
		return
	}
	if c.assumedClaims == nil {
		c.assumedClaims = map[string]assumedVolume[*resourcev1beta1.ResourceClaim]{}
	}
	lister := c.informers.Resource().V1beta1().ResourceClaims().Lister()
	for _, ca := range alloc.Claims {
		if ca.Source != dra.SourceNew && ca.Source != dra.SourceSession {
			continue
		}
		base, err := lister.ResourceClaims(ca.Namespace).Get(ca.Name)
		if err != nil || base.Status.Allocation != nil {
			continue
		}
		claim := base.DeepCopy()
		claim.Status.Allocation = ca.Result.DeepCopy()
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourcev1beta1.ResourceClaimConsumerReference{Resource: "pods", Name: pod.name, UID: pod.uid})
		c.assumedClaims[ca.Namespace+"/"+ca.Name] = assumedVolume[*resourcev1beta1.ResourceClaim]{obj: claim, base: base, task: task}
	}
}

// forgetClaims drops the assumptions of a bind that failed.
func (c *Cache) forgetClaims(task api.TaskID, alloc *dra.Allocation) {
	if alloc == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ca := range alloc.Claims {
		forget(c.assumedClaims, ca.Namespace+"/"+ca.Name, task)
	}
}

// devicesSnapshot reads the objects for a session, with the claims binds
// in flight allocated laid over the informer's until it shows them.
// Callers hold mu.
func (c *Cache) devicesSnapshot() *api.Devices {
	if c.opts.WithoutDRA {
		return nil
	}
	r := c.informers.Resource().V1beta1()
	d := &api.Devices{}
	claims, _ := r.ResourceClaims().Lister().List(labels.Everything())
	d.Claims = make([]*resourcev1beta1.ResourceClaim, len(claims))
	for i, claim := range claims {
		d.Claims[i] = seen(c.assumedClaims, claim.Namespace+"/"+claim.Name, claim)
	}
	d.Slices, _ = r.ResourceSlices().Lister().List(labels.Everything())
	d.Classes, _ = r.DeviceClasses().Lister().List(labels.Everything())
	return d
}

// podRef names the pod a claim is reserved for.
type podRef struct {
	name string
	uid  types.UID
}

package cache

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// storageInformers are the informers of what the volume filters read:
// claims, volumes, storage classes, CSI nodes and volume attachments, and,
// when storage capacity is tracked, CSI drivers and capacities.
func (c *Cache) storageInformers() []cache.SharedIndexInformer {
	core, storage := c.informers.Core().V1(), c.informers.Storage().V1()
	out := []cache.SharedIndexInformer{
		core.PersistentVolumeClaims().Informer(),
		core.PersistentVolumes().Informer(),
		storage.StorageClasses().Informer(),
		storage.CSINodes().Informer(),
		storage.VolumeAttachments().Informer(),
	}
	if c.opts.TrackStorageCapacity {
		out = append(out, storage.CSIDrivers().Informer(), storage.CSIStorageCapacities().Informer())
	}
	return out
}

// assumedVolume is a volume or claim as a bind in flight wrote it, over the
// informer's object it was decided from (base): until the informer holds
// another object, sessions see the assumed one, so that a volume just given
// to one claim is not given to another. Any informer update replaces the
// object, so the pointer says when the assumption is out of date, whether
// or not the objects carry resource versions (the simulator's do not).
type assumedVolume[T any] struct {
	obj  T
	base T
	task api.TaskID
}

// assumeVolumes records a bind's volume decisions. An object the informer
// has already replaced with a different version is not assumed: the
// write will conflict and the bind fail. Callers hold mu.
func (c *Cache) assumeVolumes(task api.TaskID, b *api.VolumeBinding) {
	if b.Empty() || c.opts.WithoutStorage {
		return
	}
	if c.assumedPVs == nil {
		c.assumedPVs = map[string]assumedVolume[*v1.PersistentVolume]{}
		c.assumedPVCs = map[string]assumedVolume[*v1.PersistentVolumeClaim]{}
	}
	core := c.informers.Core().V1()
	for _, sb := range b.Static {
		base, err := core.PersistentVolumes().Lister().Get(sb.Volume.Name)
		if err == nil && base.ResourceVersion == sb.Volume.ResourceVersion {
			c.assumedPVs[sb.Volume.Name] = assumedVolume[*v1.PersistentVolume]{obj: sb.Volume, base: base, task: task}
		}
	}
	for _, pvc := range b.Provision {
		base, err := core.PersistentVolumeClaims().Lister().PersistentVolumeClaims(pvc.Namespace).Get(pvc.Name)
		if err == nil && base.ResourceVersion == pvc.ResourceVersion {
			c.assumedPVCs[pvc.Namespace+"/"+pvc.Name] = assumedVolume[*v1.PersistentVolumeClaim]{obj: pvc, base: base, task: task}
		}
	}
}

// forgetVolumes drops the assumptions of a bind that failed: sessions see
// what the API server says again.
func (c *Cache) forgetVolumes(task api.TaskID, b *api.VolumeBinding) {
	if b.Empty() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sb := range b.Static {
		forget(c.assumedPVs, sb.Volume.Name, task)
	}
	for _, pvc := range b.Provision {
		forget(c.assumedPVCs, pvc.Namespace+"/"+pvc.Name, task)
	}
}

// forget drops the assumption of key if task made it.
func forget[T any](assumed map[string]assumedVolume[T], key string, task api.TaskID) {
	if a, ok := assumed[key]; ok && a.task == task {
		delete(assumed, key)
	}
}

// seen returns what a session sees of an informer's object: the assumed
// one while the informer still holds the object it was decided from;
// otherwise the informer's, dropping an assumption it has moved past.
func seen[T comparable](assumed map[string]assumedVolume[T], key string, obj T) T {
	a, ok := assumed[key]
	if !ok {
		return obj
	}
	if a.base == obj {
		return a.obj
	}
	delete(assumed, key)
	return obj
}

// storageSnapshot reads the storage objects for a session, with the
// assumptions the informers have not caught up with laid over them; an
// assumption the informer has moved past is dropped. Callers hold mu.
func (c *Cache) storageSnapshot() *api.Storage {
	if c.opts.WithoutStorage {
		return nil
	}
	core, storage := c.informers.Core().V1(), c.informers.Storage().V1()
	st := &api.Storage{}
	claims, _ := core.PersistentVolumeClaims().Lister().List(labels.Everything())
	st.Claims = make(map[string]*v1.PersistentVolumeClaim, len(claims))
	for _, pvc := range claims {
		key := pvc.Namespace + "/" + pvc.Name
		st.Claims[key] = seen(c.assumedPVCs, key, pvc)
	}
	volumes, _ := core.PersistentVolumes().Lister().List(labels.Everything())
	st.Volumes = make(map[string]*v1.PersistentVolume, len(volumes))
	for _, pv := range volumes {
		st.Volumes[pv.Name] = seen(c.assumedPVs, pv.Name, pv)
	}
	classes, _ := storage.StorageClasses().Lister().List(labels.Everything())
	st.Classes = byName(classes, func(o *storageClass) string { return o.Name })
	csiNodes, _ := storage.CSINodes().Lister().List(labels.Everything())
	st.CSINodes = byName(csiNodes, func(o *csiNode) string { return o.Name })
	if c.opts.TrackStorageCapacity {
		st.CapacityTracked = true
		drivers, _ := storage.CSIDrivers().Lister().List(labels.Everything())
		st.CSIDrivers = byName(drivers, func(o *csiDriver) string { return o.Name })
		st.Capacities, _ = storage.CSIStorageCapacities().Lister().List(labels.Everything())
	}
	st.Attachments, _ = storage.VolumeAttachments().Lister().List(labels.Everything())
	return st
}

func byName[T any](list []T, name func(T) string) map[string]T {
	out := make(map[string]T, len(list))
	for _, o := range list {
		out[name(o)] = o
	}
	return out
}

type (
	storageClass = storagev1.StorageClass
	csiNode      = storagev1.CSINode
	csiDriver    = storagev1.CSIDriver
)

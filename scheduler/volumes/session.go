package volumes

import (
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	csitrans "k8s.io/csi-translation-lib"
	csiplugins "k8s.io/csi-translation-lib/plugins"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Session is the volume state of one scheduling session: the snapshot's
// objects with the session's own reservations laid over them. Filters may
// run on many goroutines at once; Reserve and Unreserve take the write
// lock.
type Session struct {
	st         *api.Storage
	translator csitrans.CSITranslator

	mu sync.RWMutex
	// volumes and claims hold the objects as this session assumed them
	// (a volume's claimRef set, a claim's selected node set), over the
	// snapshot's.
	volumes map[string]*v1.PersistentVolume
	claims  map[string]*v1.PersistentVolumeClaim

	classIndex sync.Once
	// byClass lists the snapshot's volume names per storage class, in
	// name order: kube-scheduler takes the first smallest fit, and name
	// order makes that choice the same on every run.
	byClass map[string][]string
}

// NewSession opens the volume state of a session; st may be nil (no
// storage objects watched), and every claim is then missing.
func NewSession(st *api.Storage) *Session {
	if st == nil {
		st = &api.Storage{}
	}
	return &Session{
		st:         st,
		translator: csitrans.New(),
		volumes:    map[string]*v1.PersistentVolume{},
		claims:     map[string]*v1.PersistentVolumeClaim{},
	}
}

// claim returns a claim as the session sees it, or nil.
func (s *Session) claim(namespace, name string) *v1.PersistentVolumeClaim {
	key := namespace + "/" + name
	s.mu.RLock()
	c, ok := s.claims[key]
	s.mu.RUnlock()
	if ok {
		return c
	}
	return s.st.Claims[key]
}

// volume returns a volume as the session sees it, or nil.
func (s *Session) volume(name string) *v1.PersistentVolume {
	s.mu.RLock()
	pv, ok := s.volumes[name]
	s.mu.RUnlock()
	if ok {
		return pv
	}
	return s.st.Volumes[name]
}

// volumesOfClass returns the volumes of a storage class as the session
// sees them, in name order.
func (s *Session) volumesOfClass(class string) []*v1.PersistentVolume {
	s.classIndex.Do(func() {
		s.byClass = map[string][]string{}
		for name, pv := range s.st.Volumes {
			c := storagehelpers.GetPersistentVolumeClass(pv)
			s.byClass[c] = append(s.byClass[c], name)
		}
		for _, names := range s.byClass {
			slices.Sort(names)
		}
	})
	names := s.byClass[class]
	out := make([]*v1.PersistentVolume, 0, len(names))
	for _, n := range names {
		out = append(out, s.volume(n))
	}
	return out
}

func (s *Session) class(name string) *storagev1.StorageClass { return s.st.Classes[name] }

func (s *Session) csiNode(node string) *storagev1.CSINode { return s.st.CSINodes[node] }

// migrationOn lists the in-tree plugins whose CSI migration is on in
// kube-scheduler v1.32 by default.
var migrationOn = map[string]bool{
	csiplugins.AWSEBSInTreePluginName:    true,
	csiplugins.GCEPDInTreePluginName:     true,
	csiplugins.AzureDiskInTreePluginName: true,
	csiplugins.CinderInTreePluginName:    true,
	csiplugins.PortworxVolumePluginName:  true,
}

// migratedOnNode reports whether an in-tree plugin's volumes are served by
// its CSI driver on the node, as volume binding judges it: the plugin's
// migration is on and the node's CSINode lists the plugin as migrated.
func migratedOnNode(plugin string, csiNode *storagev1.CSINode) bool {
	if csiNode == nil || !migrationOn[plugin] {
		return false
	}
	for _, p := range strings.Split(csiNode.Annotations[v1.MigratedPluginsAnnotationKey], ",") {
		if p == plugin {
			return true
		}
	}
	return false
}

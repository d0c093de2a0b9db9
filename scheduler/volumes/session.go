package volumes

import (
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
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
	// reservedFor lists, by claim, the volumes this session gave it.
	reservedFor map[string][]string

	classIndex sync.Once
	// onNode caches, per class and node, the names of the class's volumes
	// whose node affinity admits the node: a volume matches a claim on a
	// node only then, and the answer does not change within a session, so
	// the matcher looks at a node's few volumes instead of every volume
	// of the class for every pod and node (local volumes are one or a few
	// per node).
	nodeMu sync.RWMutex
	onNode map[classNode][]string
	// selectors holds each volume's parsed node affinity (nil for none);
	// claimRefs the snapshot's volumes by the claim their claimRef names.
	selectors map[string]*nodeaffinity.LazyErrorNodeSelector
	claimRefs map[string][]string
	classes   map[string]*classIndex
}

type classNode struct{ class, node string }

// NewSession opens the volume state of a session; st may be nil (no
// storage objects watched), and every claim is then missing.
func NewSession(st *api.Storage) *Session {
	if st == nil {
		st = &api.Storage{}
	}
	return &Session{
		st:          st,
		translator:  csitrans.New(),
		volumes:     map[string]*v1.PersistentVolume{},
		claims:      map[string]*v1.PersistentVolumeClaim{},
		reservedFor: map[string][]string{},
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

// volumesOfClassOn returns the volumes of a storage class whose node
// affinity admits the node, as the session sees them, in name order.
func (s *Session) volumesOfClassOn(class string, node *v1.Node) []*v1.PersistentVolume {
	s.classIndex.Do(s.indexClasses)
	key := classNode{class, node.Name}
	s.nodeMu.RLock()
	names, ok := s.onNode[key]
	s.nodeMu.RUnlock()
	if !ok {
		names = s.admitted(class, node)
		s.nodeMu.Lock()
		s.onNode[key] = names
		s.nodeMu.Unlock()
	}
	out := make([]*v1.PersistentVolume, 0, len(names))
	for _, n := range names {
		out = append(out, s.volume(n))
	}
	return out
}

// admitted lists, in name order, the class's volumes whose node affinity
// admits the node. Volumes pinned by a single "key In values" requirement
// (local volumes, pinned by hostname) are found through the node's label;
// the others are matched one by one.
func (s *Session) admitted(class string, node *v1.Node) []string {
	ix := s.classes[class]
	if ix == nil {
		return []string{}
	}
	names := []string{}
	for key, byValue := range ix.pinned {
		if v, ok := node.Labels[key]; ok {
			names = append(names, byValue[v]...)
		}
	}
	// Only labels count, as the volume helpers' affinity check builds the
	// node from its labels alone.
	labelsOnly := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: node.Labels}}
	for _, n := range ix.other {
		if sel := s.selectors[n]; sel == nil || matches(sel, labelsOnly) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// classIndex is one storage class's volumes: those pinned by one
// "key In values" requirement, by key and value, and the others.
type classIndex struct {
	pinned map[string]map[string][]string
	other  []string
}

// pinnedBy returns the key and values of an affinity that is exactly one
// term with one In requirement on a label, or ok false.
func pinnedBy(a *v1.VolumeNodeAffinity) (key string, values []string, ok bool) {
	if a == nil || a.Required == nil || len(a.Required.NodeSelectorTerms) != 1 {
		return "", nil, false
	}
	t := a.Required.NodeSelectorTerms[0]
	if len(t.MatchFields) != 0 || len(t.MatchExpressions) != 1 {
		return "", nil, false
	}
	r := t.MatchExpressions[0]
	if r.Operator != v1.NodeSelectorOpIn || len(validation.IsQualifiedName(r.Key)) != 0 {
		return "", nil, false
	}
	for _, v := range r.Values {
		if len(validation.IsValidLabelValue(v)) != 0 {
			return "", nil, false
		}
	}
	return r.Key, r.Values, true
}

func matches(sel *nodeaffinity.LazyErrorNodeSelector, node *v1.Node) bool {
	ok, err := sel.Match(node)
	return err == nil && ok
}

// indexClasses groups the snapshot's volumes by class and parses their
// node affinity, once per session.
func (s *Session) indexClasses() {
	// Names per class in name order: kube-scheduler takes the first
	// smallest fit, and name order makes that choice the same every run.
	byClass := map[string][]string{}
	s.selectors = map[string]*nodeaffinity.LazyErrorNodeSelector{}
	s.onNode = map[classNode][]string{}
	s.claimRefs = map[string][]string{}
	for name, pv := range s.st.Volumes {
		if ref := pv.Spec.ClaimRef; ref != nil {
			s.claimRefs[ref.Namespace+"/"+ref.Name] = append(s.claimRefs[ref.Namespace+"/"+ref.Name], name)
		}
		c := storagehelpers.GetPersistentVolumeClass(pv)
		byClass[c] = append(byClass[c], name)
		if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
			s.selectors[name] = nodeaffinity.NewLazyErrorNodeSelector(a.Required)
		}
	}
	for _, names := range byClass {
		slices.Sort(names)
	}
	s.classes = map[string]*classIndex{}
	for class, names := range byClass {
		ix := &classIndex{pinned: map[string]map[string][]string{}}
		for _, n := range names {
			key, values, ok := pinnedBy(s.st.Volumes[n].Spec.NodeAffinity)
			if !ok {
				ix.other = append(ix.other, n)
				continue
			}
			if ix.pinned[key] == nil {
				ix.pinned[key] = map[string][]string{}
			}
			for _, v := range values {
				ix.pinned[key][v] = append(ix.pinned[key][v], n)
			}
		}
		s.classes[class] = ix
	}
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

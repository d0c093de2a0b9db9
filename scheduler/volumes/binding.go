package volumes

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	csitrans "k8s.io/csi-translation-lib"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// FilterBinding is VolumeBinding's Filter: the pod's bound volumes must
// allow the node, and each unbound WaitForFirstConsumer claim must find an
// available volume there (the smallest that fits, claims taken smallest
// request first) or be provisionable there. It returns what would be
// written if the pod went to the node.
func (s *Session) FilterBinding(pc *PodClaims, node *v1.Node) (*api.VolumeBinding, *Rejection) {
	if !pc.Binds() {
		return nil, nil
	}
	// As in kube-scheduler, the checks set these flags and the reasons
	// are gathered from them at the end; only an error ends the check early.
	boundOK, volumesFound, unboundOK, enoughSpace := true, true, true, true
	out := &api.VolumeBinding{}
	verdict := func() (*api.VolumeBinding, *Rejection) {
		var reasons []string
		if !boundOK {
			reasons = append(reasons, ReasonNodeConflict)
		}
		if !unboundOK {
			reasons = append(reasons, ReasonBindConflict)
		}
		if !enoughSpace {
			reasons = append(reasons, ReasonNotEnoughSpace)
		}
		if !volumesFound {
			reasons = append(reasons, ReasonPVNotExist)
		}
		if len(reasons) > 0 {
			return nil, reject(VolumeBindingName, Unresolvable, reasons...)
		}
		if out.Empty() {
			return nil, nil
		}
		return out, nil
	}
	if len(pc.bound) > 0 {
		var err error
		boundOK, volumesFound, err = s.checkBound(pc.bound, node)
		if err != nil {
			return nil, reject(VolumeBindingName, Failed, err.Error())
		}
	}
	if len(pc.delayed) == 0 {
		return verdict()
	}
	var toMatch, toProvision []*v1.PersistentVolumeClaim
	for _, c := range pc.delayed {
		selected, ok := c.Annotations[storagehelpers.AnnSelectedNode]
		if !ok {
			toMatch = append(toMatch, c)
			continue
		}
		// A claim already given to another node's provisioner fits only
		// there.
		if selected != node.Name {
			unboundOK = false
			return verdict()
		}
		toProvision = append(toProvision, c)
	}
	if len(toMatch) > 0 {
		static, unmatched, err := s.matchVolumes(toMatch, node)
		if err != nil {
			return nil, reject(VolumeBindingName, Failed, err.Error())
		}
		unboundOK = len(unmatched) == 0
		out.Static = static
		toProvision = append(toProvision, unmatched...)
	}
	if len(toProvision) > 0 {
		var err error
		unboundOK, enoughSpace, err = s.checkProvisions(toProvision, node)
		if err != nil {
			return nil, reject(VolumeBindingName, Failed, err.Error())
		}
		if unboundOK && enoughSpace {
			out.Provision = toProvision
		}
	}
	return verdict()
}

// checkBound checks the node affinity of the bound claims' volumes. A
// volume that does not exist leaves the node out with its own reason.
func (s *Session) checkBound(claims []*v1.PersistentVolumeClaim, node *v1.Node) (affinityOK, found bool, err error) {
	csiNode := s.csiNode(node.Name)
	for _, c := range claims {
		pv := s.volume(c.Spec.VolumeName)
		if pv == nil {
			return true, false, nil
		}
		pv, err := translateForNode(s.translator, pv, csiNode)
		if err != nil {
			return false, true, err
		}
		if storagehelpers.CheckNodeAffinity(pv, node.Labels) != nil {
			return false, true, nil
		}
	}
	return true, true, nil
}

// matchVolumes finds an available volume on the node for each claim,
// smallest request first, each volume chosen once. Claims left without one
// are returned for provisioning.
func (s *Session) matchVolumes(claims []*v1.PersistentVolumeClaim, node *v1.Node) (static []api.StaticBinding, unmatched []*v1.PersistentVolumeClaim, err error) {
	claims = slices.Clone(claims)
	slices.SortStableFunc(claims, func(a, b *v1.PersistentVolumeClaim) int {
		as, bs := a.Spec.Resources.Requests[v1.ResourceStorage], b.Spec.Resources.Requests[v1.ResourceStorage]
		return as.Cmp(bs)
	})
	chosen := map[string]bool{}
	for _, c := range claims {
		pv, err := s.matchVolume(c, node, chosen)
		if err != nil {
			return nil, nil, err
		}
		if pv == nil {
			unmatched = append(unmatched, c)
			continue
		}
		chosen[pv.Name] = true
		static = append(static, api.StaticBinding{Volume: pv, Claim: c})
	}
	return static, unmatched, nil
}

// checkProvisions checks that each claim's storage class can provision a
// volume reachable from the node, and, for CSI drivers that publish their
// capacity, that some pool the node reaches has room for it.
func (s *Session) checkProvisions(claims []*v1.PersistentVolumeClaim, node *v1.Node) (provisionable, enoughSpace bool, err error) {
	for _, c := range claims {
		className := storagehelpers.GetPersistentVolumeClaimClass(c)
		if className == "" {
			return false, false, fmt.Errorf("no class for claim %q", c.Namespace+"/"+c.Name)
		}
		class := s.class(className)
		if class == nil {
			return false, false, fmt.Errorf("failed to find storage class %q", className)
		}
		if class.Provisioner == "" || class.Provisioner == storagehelpers.NotSupportedProvisioner {
			return false, true, nil
		}
		if !matchesTopology(class.AllowedTopologies, node.Labels) {
			return false, true, nil
		}
		if !s.hasCapacity(class.Provisioner, c, className, node) {
			return true, false, nil
		}
	}
	return true, true, nil
}

// hasCapacity looks for a CSIStorageCapacity of the class, reachable from
// the node, whose largest volume (or whole capacity) holds the claim's
// request; only CSI drivers that opt in are checked, and only when the
// capacities are tracked at all (Volcano checks none without --csi-storage).
func (s *Session) hasCapacity(provisioner string, c *v1.PersistentVolumeClaim, className string, node *v1.Node) bool {
	want, ok := c.Spec.Resources.Requests[v1.ResourceStorage]
	if !ok || !s.st.CapacityTracked {
		return true
	}
	driver := s.st.CSIDrivers[provisioner]
	if driver == nil || driver.Spec.StorageCapacity == nil || !*driver.Spec.StorageCapacity {
		return true
	}
	for _, capacity := range s.st.Capacities {
		if capacity.StorageClassName != className {
			continue
		}
		limit := capacity.Capacity
		if capacity.MaximumVolumeSize != nil {
			limit = capacity.MaximumVolumeSize
		}
		if limit == nil || limit.Value() < want.Value() || capacity.NodeTopology == nil {
			continue
		}
		sel, err := metaSelector(capacity.NodeTopology)
		if err != nil {
			klog.ErrorS(err, "CSIStorageCapacity has a node topology that is not a label selector; it is not counted", "capacity", klog.KObj(capacity))
			continue
		}
		if sel.Matches(labels.Set(node.Labels)) {
			return true
		}
	}
	return false
}

// matchesTopology reports whether node labels satisfy a storage class's
// allowed topologies: any one term, each of whose expressions the node's
// label value is listed in. No terms allow every node.
func matchesTopology(terms []v1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, term := range terms {
		if termMatches(term, nodeLabels) {
			return true
		}
	}
	return false
}

func termMatches(term v1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(term.MatchLabelExpressions) == 0 {
		return false
	}
	for _, e := range term.MatchLabelExpressions {
		v, ok := nodeLabels[e.Key]
		if !ok || !slices.Contains(e.Values, v) {
			return false
		}
	}
	return true
}

func metaSelector(sel *metav1.LabelSelector) (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(sel)
}

// translateForNode gives an in-tree volume the form of its CSI driver
// where the node serves it through that driver, so that its node affinity
// uses the driver's topology keys.
func translateForNode(translator csitrans.CSITranslator, pv *v1.PersistentVolume, csiNode *storagev1.CSINode) (*v1.PersistentVolume, error) {
	if !translator.IsPVMigratable(pv) {
		return pv, nil
	}
	plugin, err := translator.GetInTreePluginNameFromSpec(pv, nil)
	if err != nil {
		return nil, fmt.Errorf("could not get plugin name from pv: %v", err)
	}
	if !migratedOnNode(plugin, csiNode) {
		return pv, nil
	}
	out, err := translator.TranslateInTreePVToCSI(klog.Background(), pv)
	if err != nil {
		return nil, fmt.Errorf("could not translate pv: %v", err)
	}
	return out, nil
}

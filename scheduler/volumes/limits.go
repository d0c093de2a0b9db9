package volumes

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	csiplugins "k8s.io/csi-translation-lib/plugins"
	"k8s.io/klog/v2"
)

// countsForLimits is NodeVolumeLimits' PreFilter: only pods with a claim,
// an ephemeral volume or an in-tree volume that can migrate to CSI are
// counted. It also finds the pod's own faults, which rule out every node
// alike.
func (s *Session) countsForLimits(pod *v1.Pod, pc *PodClaims) bool {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if vol.PersistentVolumeClaim != nil || vol.Ephemeral != nil || s.translator.IsInlineMigratable(vol) {
			pc.limitsErr = s.podFaults(pod)
			return true
		}
	}
	return false
}

// podFaults are the faults of the pod's volumes that the limit count
// reports whatever the node: a claim that does not exist, an ephemeral
// volume's claim that belongs to another pod.
func (s *Session) podFaults(pod *v1.Pod) *limitsError {
	for i := range pod.Spec.Volumes {
		name, isEphemeral, ok := claimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		if name == "" {
			return &limitsError{msg: "PersistentVolumeClaim had no name"}
		}
		c := s.claim(pod.Namespace, name)
		if c == nil {
			return &limitsError{msg: fmt.Sprintf("looking up PVC %s/%s: %s", pod.Namespace, name, notFound("persistentvolumeclaim", name)), notFound: true}
		}
		if isEphemeral {
			if err := ephemeral.VolumeIsForPod(pod, c); err != nil {
				return &limitsError{msg: err.Error()}
			}
		}
	}
	return nil
}

// FilterLimits is NodeVolumeLimits' CSI filter: per CSI driver, the
// volumes the node already has attached (those of its pods, including the
// ones placed earlier in the session, and its VolumeAttachments) plus the
// pod's new ones must stay within the count the node's CSINode allows.
// A volume several pods share counts once.
func (s *Session) FilterLimits(pc *PodClaims, node *v1.Node, podsOnNode func(yield func(*v1.Pod))) *Rejection {
	if pc == nil || !pc.limits {
		return nil
	}
	// The pod's own faults (a missing claim, an ephemeral claim of another
	// pod) do not depend on the node: PreFilter found them once.
	if err := pc.limitsErr; err != nil {
		if err.notFound {
			return reject(NodeVolumeLimitsName, Unresolvable, err.Error())
		}
		return reject(NodeVolumeLimitsName, Failed, err.Error())
	}
	csiNode := s.csiNode(node.Name)
	limits := volumeLimits(csiNode)
	if len(limits) == 0 {
		return nil
	}
	fresh := map[string]string{}
	if err := s.attachable(pc.pod, csiNode, true, fresh); err != nil {
		if err.notFound {
			return reject(NodeVolumeLimitsName, Unresolvable, err.Error())
		}
		return reject(NodeVolumeLimitsName, Failed, err.Error())
	}
	if len(fresh) == 0 {
		return nil
	}
	attached := map[string]string{}
	var failure *limitsError
	podsOnNode(func(p *v1.Pod) {
		if failure == nil {
			failure = s.attachable(p, csiNode, false, attached)
		}
	})
	if failure != nil {
		return reject(NodeVolumeLimitsName, Failed, failure.Error())
	}
	counts := map[string]int{}
	for id, driver := range attached {
		delete(fresh, id)
		counts[driver]++
	}
	for id, driver := range s.attachmentsOn(node.Name) {
		if _, counted := attached[id]; !counted {
			counts[driver]++
		}
	}
	adding := map[string]int{}
	for _, driver := range fresh {
		adding[driver]++
	}
	for driver, n := range adding {
		if limit, ok := limits[driver]; ok && counts[driver]+n > int(limit) {
			return reject(NodeVolumeLimitsName, Unschedulable, ReasonMaxVolumeCount)
		}
	}
	return nil
}

// limitsError is an error of the attachable-volume count; notFound marks
// a missing claim of the pod being placed, which kube-scheduler treats
// as unresolvable.
type limitsError struct {
	msg      string
	notFound bool
}

func (e *limitsError) Error() string { return e.msg }

// attachable adds the pod's CSI volumes to out, by "driver/handle". For
// the pod being placed a missing claim is an error; for pods already on
// the node it is not counted.
func (s *Session) attachable(pod *v1.Pod, csiNode *storagev1.CSINode, placing bool, out map[string]string) *limitsError {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		name, isEphemeral, ok := claimName(pod, vol)
		if !ok {
			if err := s.attachableInline(vol, pod.Namespace, csiNode, out); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			return &limitsError{msg: "PersistentVolumeClaim had no name"}
		}
		c := s.claim(pod.Namespace, name)
		if c == nil {
			if placing {
				return &limitsError{msg: fmt.Sprintf("looking up PVC %s/%s: %s", pod.Namespace, name, notFound("persistentvolumeclaim", name)), notFound: true}
			}
			continue
		}
		if isEphemeral {
			if err := ephemeral.VolumeIsForPod(pod, c); err != nil {
				return &limitsError{msg: err.Error()}
			}
		}
		driver, handle := s.csiDriverOf(c, csiNode)
		if driver == "" || handle == "" {
			continue
		}
		out[driver+"/"+handle] = driver
	}
	return nil
}

// attachableInline counts an in-tree inline volume whose plugin is
// migrated to CSI on the node.
func (s *Session) attachableInline(vol *v1.Volume, namespace string, csiNode *storagev1.CSINode, out map[string]string) *limitsError {
	if !s.translator.IsInlineMigratable(vol) {
		return nil
	}
	plugin, err := s.translator.GetInTreePluginNameFromSpec(nil, vol)
	if err != nil {
		return &limitsError{msg: fmt.Sprintf("looking up provisioner name for volume %s: %v", vol.Name, err)}
	}
	if !limitsMigrated(csiNode, plugin) {
		return nil
	}
	pv, err := s.translator.TranslateInTreeInlineVolumeToCSI(klog.Background(), vol, namespace)
	if err != nil || pv == nil {
		return &limitsError{msg: fmt.Sprintf("converting volume(%s) from inline to csi: %v", vol.Name, err)}
	}
	driver, err := s.translator.GetCSINameFromInTreeName(plugin)
	if err != nil {
		return &limitsError{msg: fmt.Sprintf("looking up CSI driver name for provisioner %s: %v", plugin, err)}
	}
	if pv.Spec.CSI == nil {
		return nil
	}
	out[driver+"/"+pv.Spec.CSI.VolumeHandle] = driver
	return nil
}

// csiDriverOf names the CSI driver and volume handle of a claim: from its
// volume when bound (an in-tree volume through its migrated driver), else
// from its storage class's provisioner with a handle of the claim's own,
// so that an unbound claim counts once.
func (s *Session) csiDriverOf(c *v1.PersistentVolumeClaim, csiNode *storagev1.CSINode) (string, string) {
	if c.Spec.VolumeName != "" {
		if pv := s.volume(c.Spec.VolumeName); pv != nil {
			return s.csiDriverOfVolume(pv, csiNode)
		}
	}
	className := storagehelpers.GetPersistentVolumeClaimClass(c)
	if className == "" {
		return "", ""
	}
	class := s.class(className)
	if class == nil {
		return "", ""
	}
	handle := "\x00claim/" + c.Namespace + "/" + c.Name
	provisioner := class.Provisioner
	if s.translator.IsMigratableIntreePluginByName(provisioner) {
		if !limitsMigrated(csiNode, provisioner) {
			return "", ""
		}
		driver, err := s.translator.GetCSINameFromInTreeName(provisioner)
		if err != nil {
			return "", ""
		}
		return driver, handle
	}
	return provisioner, handle
}

func (s *Session) csiDriverOfVolume(pv *v1.PersistentVolume, csiNode *storagev1.CSINode) (string, string) {
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle
	}
	if !s.translator.IsPVMigratable(pv) {
		return "", ""
	}
	plugin, err := s.translator.GetInTreePluginNameFromSpec(pv, nil)
	if err != nil || !limitsMigrated(csiNode, plugin) {
		return "", ""
	}
	out, err := s.translator.TranslateInTreePVToCSI(klog.Background(), pv)
	if err != nil || out.Spec.CSI == nil {
		return "", ""
	}
	return out.Spec.CSI.Driver, out.Spec.CSI.VolumeHandle
}

// limitsMigrated is the volume-limit count's view of CSI migration, which
// differs from volume binding's: with a CSINode present, the AWS, GCE,
// Azure Disk and Cinder plugins count as migrated whatever the node's
// annotation says; Portworx only when the annotation lists it.
func limitsMigrated(csiNode *storagev1.CSINode, plugin string) bool {
	if csiNode == nil || plugin == "" {
		return false
	}
	switch plugin {
	case csiplugins.AWSEBSInTreePluginName, csiplugins.GCEPDInTreePluginName,
		csiplugins.AzureDiskInTreePluginName, csiplugins.CinderInTreePluginName:
		return true
	case csiplugins.PortworxVolumePluginName:
		return migratedOnNode(plugin, csiNode)
	}
	return false
}

// volumeLimits reads the per-driver attach limits of a node's CSINode.
func volumeLimits(csiNode *storagev1.CSINode) map[string]int64 {
	out := map[string]int64{}
	if csiNode == nil {
		return out
	}
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			out[d.Name] = int64(*d.Allocatable.Count)
		}
	}
	return out
}

// attachmentsOn lists the CSI volumes the node's VolumeAttachments hold,
// by "attacher/handle".
func (s *Session) attachmentsOn(node string) map[string]string {
	out := map[string]string{}
	for _, va := range s.st.Attachments {
		if va.Spec.NodeName != node || va.Spec.Attacher == "" || va.Spec.Source.PersistentVolumeName == nil {
			continue
		}
		pv := s.st.Volumes[*va.Spec.Source.PersistentVolumeName]
		if pv == nil || pv.Spec.CSI == nil {
			continue
		}
		out[va.Spec.Attacher+"/"+pv.Spec.CSI.VolumeHandle] = va.Spec.Attacher
	}
	return out
}

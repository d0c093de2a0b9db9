package volumes

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
)

// volumeTopology is one zone or region label of a bound volume: the
// values it allows.
type volumeTopology struct {
	volume string
	key    string
	values []string
}

// zoneLabels are the labels VolumeZone compares, beta ones first.
var zoneLabels = []string{
	v1.LabelFailureDomainBetaZone,
	v1.LabelFailureDomainBetaRegion,
	v1.LabelTopologyZone,
	v1.LabelTopologyRegion,
}

// podVolumeTopologies reads, once for all nodes, the zone and region
// labels of the volumes bound to the pod's claims (generic ephemeral
// volumes are not looked at, as in kube-scheduler). An unbound claim that
// waits for its first consumer is skipped; any other unbound claim, or a
// claim or volume that is missing, keeps the pod pending.
func (s *Session) podVolumeTopologies(pod *v1.Pod) ([]volumeTopology, *Rejection) {
	var out []volumeTopology
	for i := range pod.Spec.Volumes {
		src := pod.Spec.Volumes[i].PersistentVolumeClaim
		if src == nil {
			continue
		}
		if src.ClaimName == "" {
			return nil, reject(VolumeZoneName, Unresolvable, "PersistentVolumeClaim had no name")
		}
		c := s.claim(pod.Namespace, src.ClaimName)
		if c == nil {
			return nil, reject(VolumeZoneName, Unresolvable, notFound("persistentvolumeclaim", src.ClaimName))
		}
		if c.Spec.VolumeName == "" {
			className := storagehelpers.GetPersistentVolumeClaimClass(c)
			if className == "" {
				return nil, reject(VolumeZoneName, Unresolvable, "PersistentVolumeClaim had no pv name and storageClass name")
			}
			class := s.class(className)
			if class == nil {
				return nil, reject(VolumeZoneName, Unresolvable, notFound("storageclass.storage.k8s.io", className))
			}
			if class.VolumeBindingMode == nil {
				return nil, reject(VolumeZoneName, Unresolvable, fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", className))
			}
			if *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
				continue
			}
			return nil, reject(VolumeZoneName, Unresolvable, "PersistentVolume had no name")
		}
		pv := s.volume(c.Spec.VolumeName)
		if pv == nil {
			return nil, reject(VolumeZoneName, Unresolvable, notFound("persistentvolume", c.Spec.VolumeName))
		}
		for _, key := range zoneLabels {
			value, ok := pv.Labels[key]
			if !ok {
				continue
			}
			values, ok := splitZones(value)
			if !ok {
				// kube-scheduler ignores a label it cannot parse.
				continue
			}
			out = append(out, volumeTopology{volume: pv.Name, key: key, values: values})
		}
	}
	return out, nil
}

// splitZones reads a zone label that may list several zones joined by
// "__"; an empty entry makes the label unreadable.
func splitZones(value string) ([]string, bool) {
	parts := strings.Split(value, "__")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, false
		}
	}
	return parts, true
}

// FilterZone is VolumeZone's Filter: a node with any zone or region label
// must carry, for each label of the pod's volumes, one of the values the
// volume allows (a beta label of the volume also matches the node's GA
// label). A node without such labels fits any volume.
func (s *Session) FilterZone(pc *PodClaims, node *v1.Node) *Rejection {
	if pc == nil {
		return nil
	}
	if pc.zoneErr != nil {
		return pc.zoneErr
	}
	if len(pc.zones) == 0 {
		return nil
	}
	labeled := false
	for _, key := range zoneLabels {
		if _, ok := node.Labels[key]; ok {
			labeled = true
			break
		}
	}
	if !labeled {
		return nil
	}
	for _, t := range pc.zones {
		v, ok := node.Labels[t.key]
		if !ok {
			v, ok = node.Labels[gaLabel(t.key)]
		}
		if !ok || !slices.Contains(t.values, v) {
			return reject(VolumeZoneName, Unresolvable, ReasonZoneConflict)
		}
	}
	return nil
}

func gaLabel(key string) string {
	switch key {
	case v1.LabelFailureDomainBetaZone:
		return v1.LabelTopologyZone
	case v1.LabelFailureDomainBetaRegion:
		return v1.LabelTopologyRegion
	}
	return key
}

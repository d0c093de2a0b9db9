package volumes

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Reserve assumes, for the rest of the session, what FilterBinding found
// for the node: each chosen volume bound to its claim, each claim to
// provision given the node. It returns the objects as they are to be
// written (the volume with its claimRef, the claim with its selected-node
// annotation); later tasks of the session see them as written.
func (s *Session) Reserve(found *api.VolumeBinding, node string) (*api.VolumeBinding, error) {
	if found.Empty() {
		return nil, nil
	}
	out := &api.VolumeBinding{}
	for _, b := range found.Static {
		pv, dirty, err := storagehelpers.GetBindVolumeToClaim(b.Volume, b.Claim)
		if err != nil {
			return nil, err
		}
		if dirty {
			key := b.Claim.Namespace + "/" + b.Claim.Name
			s.mu.Lock()
			s.volumes[pv.Name] = pv
			s.reservedFor[key] = append(s.reservedFor[key], pv.Name)
			s.mu.Unlock()
		}
		out.Static = append(out.Static, api.StaticBinding{Volume: pv, Claim: b.Claim})
	}
	for _, c := range found.Provision {
		cp := c.DeepCopy()
		metav1.SetMetaDataAnnotation(&cp.ObjectMeta, storagehelpers.AnnSelectedNode, node)
		s.mu.Lock()
		s.claims[cp.Namespace+"/"+cp.Name] = cp
		s.mu.Unlock()
		out.Provision = append(out.Provision, cp)
	}
	return out, nil
}

// Unreserve takes back what Reserve assumed: the volumes and claims are
// seen as the snapshot has them again.
func (s *Session) Unreserve(reserved *api.VolumeBinding) {
	if reserved.Empty() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range reserved.Static {
		if s.volumes[b.Volume.Name] == b.Volume {
			delete(s.volumes, b.Volume.Name)
			key := b.Claim.Namespace + "/" + b.Claim.Name
			if names := slices.DeleteFunc(s.reservedFor[key], func(n string) bool { return n == b.Volume.Name }); len(names) > 0 {
				s.reservedFor[key] = names
			} else {
				delete(s.reservedFor, key)
			}
		}
	}
	for _, c := range reserved.Provision {
		key := c.Namespace + "/" + c.Name
		if s.claims[key] == c {
			delete(s.claims, key)
		}
	}
}

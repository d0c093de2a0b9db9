package volumes

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestFindPodVolumes translates the table cases of kube-scheduler
// v1.32.13's volumebinding binder tests TestFindPodVolumesWithoutProvisioning
// and TestFindPodVolumesWithProvisioning (each case keeps its name): the
// pod goes to node1; a case fails (PreFilter or an error) where kube's
// expects an error, else it lists the reasons and the bindings and
// provisions found.
func TestFindPodVolumes(t *testing.T) {
	unbound := claim("unbound-pvc", "1G", waitClass, "")
	unbound2 := claim("unbound-pvc2", "5G", waitClass, "")
	bound := claim("bound-pvc", "1G", waitClass, "pv-bound")
	preboundPVC := prebound(claim("prebound-pvc", "1G", waitClass, "pv-node1a"))
	immediateUnbound := claim("immediate-unbound-pvc", "1G", immediateClass, "")
	immediateBound := claim("immediate-bound-pvc", "1G", immediateClass, "pv-bound-immediate")
	provisioned := claim("provisioned-pvc", "1Gi", provClass, "")
	noProvisioner := claim("no-provisioner-pvc", "1Gi", waitClass, "")
	topoMismatch := claim("topo-mismatch-pvc", "1Gi", topoClass, "")

	pvNode1a := volume("pv-node1a", "node1", "5G", waitClass, nil)
	pvNode1b := volume("pv-node1b", "node1", "10G", waitClass, nil)
	pvNode2 := volume("pv-node2", "node2", "1G", waitClass, nil)
	pvBound := volume("pv-bound", "node1", "1G", waitClass, bound)
	pvNode1aBound := volume("pv-node1a", "node1", "5G", waitClass, unbound)
	pvBoundImmediate := volume("pv-bound-immediate", "node1", "1G", immediateClass, immediateBound)
	pvBoundImmediateNode2 := volume("pv-bound-immediate", "node2", "1G", immediateClass, immediateBound)

	type binding struct{ claim, volume string }
	cases := []struct {
		name       string
		claims     []*v1.PersistentVolumeClaim
		missing    bool // the pod's claims are not in the cluster
		volumes    []*v1.PersistentVolume
		shouldFail bool
		reasons    []string
		bindings   []binding
		provisions []string
	}{
		{name: "pvc-not-found", claims: []*v1.PersistentVolumeClaim{bound}, missing: true, shouldFail: true},
		{name: "bound-pvc", claims: []*v1.PersistentVolumeClaim{bound}, volumes: []*v1.PersistentVolume{pvBound}},
		{name: "bound-pvc,pv-not-exists", claims: []*v1.PersistentVolumeClaim{bound}, reasons: []string{ReasonPVNotExist}},
		{name: "prebound-pvc", claims: []*v1.PersistentVolumeClaim{preboundPVC}, volumes: []*v1.PersistentVolume{pvNode1aBound}, shouldFail: true},
		{name: "unbound-pvc,pv-same-node", claims: []*v1.PersistentVolumeClaim{unbound}, volumes: []*v1.PersistentVolume{pvNode2, pvNode1a, pvNode1b},
			bindings: []binding{{"unbound-pvc", "pv-node1a"}}},
		{name: "unbound-pvc,pv-different-node", claims: []*v1.PersistentVolumeClaim{unbound}, volumes: []*v1.PersistentVolume{pvNode2},
			reasons: []string{ReasonBindConflict}},
		{name: "two-unbound-pvcs", claims: []*v1.PersistentVolumeClaim{unbound, unbound2}, volumes: []*v1.PersistentVolume{pvNode1a, pvNode1b},
			bindings: []binding{{"unbound-pvc", "pv-node1a"}, {"unbound-pvc2", "pv-node1b"}}},
		{name: "two-unbound-pvcs,order-by-size", claims: []*v1.PersistentVolumeClaim{unbound2, unbound}, volumes: []*v1.PersistentVolume{pvNode1a, pvNode1b},
			bindings: []binding{{"unbound-pvc", "pv-node1a"}, {"unbound-pvc2", "pv-node1b"}}},
		{name: "two-unbound-pvcs,partial-match", claims: []*v1.PersistentVolumeClaim{unbound, unbound2}, volumes: []*v1.PersistentVolume{pvNode1a},
			reasons: []string{ReasonBindConflict}},
		{name: "one-bound,one-unbound", claims: []*v1.PersistentVolumeClaim{unbound, bound}, volumes: []*v1.PersistentVolume{pvBound, pvNode1a},
			bindings: []binding{{"unbound-pvc", "pv-node1a"}}},
		{name: "one-bound,one-unbound,no-match", claims: []*v1.PersistentVolumeClaim{unbound, bound}, volumes: []*v1.PersistentVolume{pvBound, pvNode2},
			reasons: []string{ReasonBindConflict}},
		{name: "one-prebound,one-unbound", claims: []*v1.PersistentVolumeClaim{unbound, preboundPVC}, volumes: []*v1.PersistentVolume{pvNode1a, pvNode1b}, shouldFail: true},
		{name: "immediate-bound-pvc", claims: []*v1.PersistentVolumeClaim{immediateBound}, volumes: []*v1.PersistentVolume{pvBoundImmediate}},
		{name: "immediate-bound-pvc-wrong-node", claims: []*v1.PersistentVolumeClaim{immediateBound}, volumes: []*v1.PersistentVolume{pvBoundImmediateNode2},
			reasons: []string{ReasonNodeConflict}},
		{name: "immediate-unbound-pvc", claims: []*v1.PersistentVolumeClaim{immediateUnbound}, shouldFail: true},
		{name: "immediate-unbound-pvc,delayed-mode-bound", claims: []*v1.PersistentVolumeClaim{immediateUnbound, bound}, volumes: []*v1.PersistentVolume{pvBound}, shouldFail: true},
		{name: "immediate-unbound-pvc,delayed-mode-unbound", claims: []*v1.PersistentVolumeClaim{immediateUnbound, unbound}, shouldFail: true},
		// TestFindPodVolumesWithProvisioning.
		{name: "one-provisioned", claims: []*v1.PersistentVolumeClaim{provisioned}, provisions: []string{"provisioned-pvc"}},
		{name: "two-unbound-pvcs,one-matched,one-provisioned", claims: []*v1.PersistentVolumeClaim{unbound, provisioned}, volumes: []*v1.PersistentVolume{pvNode1a},
			bindings: []binding{{"unbound-pvc", "pv-node1a"}}, provisions: []string{"provisioned-pvc"}},
		{name: "one-bound,one-provisioned", claims: []*v1.PersistentVolumeClaim{bound, provisioned}, volumes: []*v1.PersistentVolume{pvBound}, provisions: []string{"provisioned-pvc"}},
		{name: "one-binding,one-selected-node", claims: []*v1.PersistentVolumeClaim{bound, selectedNode(provisioned, "node1")}, volumes: []*v1.PersistentVolume{pvBound},
			provisions: []string{"provisioned-pvc"}},
		{name: "one-immediate-bound,one-provisioned", claims: []*v1.PersistentVolumeClaim{immediateBound, provisioned}, volumes: []*v1.PersistentVolume{pvBoundImmediate},
			provisions: []string{"provisioned-pvc"}},
		{name: "invalid-provisioner", claims: []*v1.PersistentVolumeClaim{noProvisioner}, reasons: []string{ReasonBindConflict}},
		{name: "volume-topology-unsatisfied", claims: []*v1.PersistentVolumeClaim{topoMismatch}, reasons: []string{ReasonBindConflict}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var inCluster []*v1.PersistentVolumeClaim
			if !tc.missing {
				inCluster = tc.claims
			}
			s := NewSession(storageOf(inCluster, tc.volumes))
			pc, rej := s.PreFilter(podWithClaims(tc.claims...), Checks{Binding: true})
			found := &struct {
				bindings   []binding
				provisions []string
			}{}
			if rej == nil {
				b, r := s.FilterBinding(pc, testNode("node1"))
				rej = r
				if b != nil {
					for _, sb := range b.Static {
						found.bindings = append(found.bindings, binding{sb.Claim.Name, sb.Volume.Name})
					}
					for _, c := range b.Provision {
						found.provisions = append(found.provisions, c.Name)
					}
				}
			}
			failed := rej != nil && (rej.Code == Failed || strings.Contains(strings.Join(rej.Reasons, ""), "not found") || rej.Reasons[0] == ReasonUnboundImmediate)
			if failed != tc.shouldFail {
				t.Fatalf("failed = %v (%+v), want %v", failed, rej, tc.shouldFail)
			}
			if tc.shouldFail {
				return
			}
			var reasons []string
			if rej != nil {
				reasons = rej.Reasons
			}
			if !slices.Equal(reasons, tc.reasons) {
				t.Errorf("reasons = %q, want %q", reasons, tc.reasons)
			}
			if len(tc.reasons) > 0 {
				return
			}
			if !slices.Equal(found.bindings, tc.bindings) {
				t.Errorf("bindings = %v, want %v", found.bindings, tc.bindings)
			}
			if !slices.Equal(found.provisions, tc.provisions) {
				t.Errorf("provisions = %v, want %v", found.provisions, tc.provisions)
			}
		})
	}
}

// TestReserveHidesVolumeFromLaterPods: a volume one pod of the session
// took is not offered to the next; taken back, it is offered again.
func TestReserveHidesVolumeFromLaterPods(t *testing.T) {
	a, b := claim("a", "1G", waitClass, ""), claim("b", "1G", waitClass, "")
	pv := volume("pv-node1", "node1", "5G", waitClass, nil)
	s := NewSession(storageOf([]*v1.PersistentVolumeClaim{a, b}, []*v1.PersistentVolume{pv}))
	node := testNode("node1")
	pcA, _ := s.PreFilter(podWithClaims(a), Checks{Binding: true})
	found, rej := s.FilterBinding(pcA, node)
	if rej != nil || len(found.Static) != 1 {
		t.Fatalf("first pod: %+v, %+v", found, rej)
	}
	reserved, err := s.Reserve(found, "node1")
	if err != nil {
		t.Fatal(err)
	}
	if ref := reserved.Static[0].Volume.Spec.ClaimRef; ref == nil || ref.Name != "a" {
		t.Fatalf("reserved volume's claimRef = %+v, want claim a", ref)
	}
	if pv.Spec.ClaimRef != nil {
		t.Fatal("Reserve changed the snapshot's volume")
	}
	podB := podWithClaims(b)
	podB.Name = "pod-b"
	pcB, _ := s.PreFilter(podB, Checks{Binding: true})
	if _, rej := s.FilterBinding(pcB, node); rej == nil || rej.Reasons[0] != ReasonBindConflict {
		t.Fatalf("second pod after the reservation: %+v, want %q", rej, ReasonBindConflict)
	}
	s.Unreserve(reserved)
	pcB, _ = s.PreFilter(podB, Checks{Binding: true})
	if found, rej := s.FilterBinding(pcB, node); rej != nil || found.Static[0].Volume.Name != "pv-node1" {
		t.Fatalf("second pod after Unreserve: %+v, %+v", found, rej)
	}
}

// TestReserveSelectsNodeForProvisioning: a claim to provision is given the
// node's name, which then holds the claim's later pods to that node.
func TestReserveSelectsNodeForProvisioning(t *testing.T) {
	c := claim("data", "1Gi", provClass, "")
	s := NewSession(storageOf([]*v1.PersistentVolumeClaim{c}, nil))
	pc, _ := s.PreFilter(podWithClaims(c), Checks{Binding: true})
	found, rej := s.FilterBinding(pc, testNode("node1"))
	if rej != nil {
		t.Fatal(rej)
	}
	reserved, _ := s.Reserve(found, "node1")
	if got := reserved.Provision[0].Annotations["volume.kubernetes.io/selected-node"]; got != "node1" {
		t.Fatalf("selected node = %q, want node1", got)
	}
	pc, _ = s.PreFilter(podWithClaims(c), Checks{Binding: true})
	if _, rej := s.FilterBinding(pc, testNode("node2")); rej == nil {
		t.Fatal("a claim given to node1's provisioner fits node2")
	}
}

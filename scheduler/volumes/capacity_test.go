package volumes

import (
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// capacityOf makes a CSIStorageCapacity of class reachable from node (any
// node when ""), as the kube-scheduler test's makeCapacity does.
func capacityOf(class, node, capacity, maxVolume string) *storagev1.CSIStorageCapacity {
	c := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Name: "net"}, StorageClassName: class, NodeTopology: &metav1.LabelSelector{}}
	if node != "" {
		c.NodeTopology.MatchLabels = map[string]string{nodeKey: node}
	}
	if capacity != "" {
		c.Capacity = ptr.To(resource.MustParse(capacity))
	}
	if maxVolume != "" {
		c.MaximumVolumeSize = ptr.To(resource.MustParse(maxVolume))
	}
	return c
}

// TestCapacity translates kube-scheduler v1.32.13's volumebinding binder
// test TestCapacity (each case keeps its name), run with the driver
// opting in to capacity tracking and without; and once more with opting
// in but capacities untracked (vc-scheduler without --csi-storage), which
// must pass every case.
func TestCapacity(t *testing.T) {
	provisioned := claim("provisioned-pvc", "1Gi", provClass, "")
	cases := []struct {
		name       string
		capacities []*storagev1.CSIStorageCapacity
		short      bool
	}{
		{"network-attached", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "", "1Gi", "")}, false},
		{"local-storage", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node1", "1Gi", "")}, false},
		{"multiple", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "", "1Gi", ""), capacityOf(provClass, "node2", "1Gi", ""), capacityOf(provClass, "node1", "1Gi", "")}, false},
		{"no-storage", nil, true},
		{"wrong-node", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node2", "1Gi", "")}, true},
		{"wrong-storage-class", []*storagev1.CSIStorageCapacity{capacityOf(waitClass, "node1", "1Gi", "")}, true},
		{"insufficient-storage", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node1", "1Mi", "")}, true},
		{"insufficient-volume-size", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node1", "1Gi", "1Mi")}, true},
		{"zero-storage", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node1", "0Mi", "")}, true},
		{"zero-volume-size", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node1", "", "0Mi")}, true},
		{"nil-storage", []*storagev1.CSIStorageCapacity{capacityOf(provClass, "node1", "", "")}, true},
	}
	for _, tracked := range []bool{true, false} {
		for _, optIn := range []bool{true, false} {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("tracked=%v/StorageCapacity=%v/%s", tracked, optIn, tc.name), func(t *testing.T) {
					st := storageOf([]*v1.PersistentVolumeClaim{provisioned}, nil)
					st.CapacityTracked = tracked
					st.Capacities = tc.capacities
					st.CSIDrivers[provisioner] = &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: provisioner},
						Spec: storagev1.CSIDriverSpec{StorageCapacity: ptr.To(optIn)}}
					s := NewSession(st)
					pc, rej := s.PreFilter(podWithClaims(provisioned), Checks{Binding: true})
					if rej != nil {
						t.Fatal(rej)
					}
					found, rej := s.FilterBinding(pc, testNode("node1"))
					var want []string
					if tc.short && optIn && tracked {
						want = []string{ReasonNotEnoughSpace}
					}
					var got []string
					if rej != nil {
						got = rej.Reasons
					}
					if !slices.Equal(got, want) {
						t.Fatalf("reasons %q, want %q", got, want)
					}
					if want == nil && (found == nil || len(found.Provision) != 1) {
						t.Fatalf("provisions %+v, want the claim", found)
					}
				})
			}
		}
	}
}

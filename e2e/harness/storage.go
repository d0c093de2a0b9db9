package harness

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// NoProvisioner is the provisioner of storage classes whose volumes are
// all created by hand (local volumes): nothing provisions for them.
const NoProvisioner = "kubernetes.io/no-provisioner"

// CreateStorageClass creates a StorageClass named tc.Name(name) with the
// given provisioner and volume binding mode, and returns that name.
func (tc *Test) CreateStorageClass(name, provisioner string, mode storagev1.VolumeBindingMode) string {
	tc.t.Helper()
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: tc.Name(name)},
		Provisioner:       provisioner,
		VolumeBindingMode: &mode,
	}
	if _, err := tc.Kube.StorageV1().StorageClasses().Create(tc.Ctx, sc, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating storage class %s: %v", sc.Name, err)
	}
	tc.mu.Lock()
	tc.storageClasses = append(tc.storageClasses, sc.Name)
	tc.mu.Unlock()
	return sc.Name
}

// CreateLocalVolume creates a PersistentVolume named tc.Name(name): a local
// volume (nothing is mounted on kwok's nodes) of storage class class and
// capacity size, ReadWriteOnce, retained when released, that only node can
// reach (required node affinity on its kubernetes.io/hostname label). It
// returns that name.
func (tc *Test) CreateLocalVolume(name, class, size, node string) string {
	tc.t.Helper()
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: tc.Name(name)},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource: v1.PersistentVolumeSource{
				Local: &v1.LocalVolumeSource{Path: "/mnt/disks/" + name},
			},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
					Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node},
				}}}},
			}},
		},
	}
	// Registered before it exists, so that cleanup deletes it even if the
	// create fails after the write.
	tc.mu.Lock()
	tc.volumes = append(tc.volumes, pv.Name)
	tc.mu.Unlock()
	if _, err := tc.Kube.CoreV1().PersistentVolumes().Create(tc.Ctx, pv, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating PersistentVolume %s: %v", pv.Name, err)
	}
	return pv.Name
}

// CreateClaim creates a ReadWriteOnce PersistentVolumeClaim in the test's
// namespace, of storage class class, asking for size.
func (tc *Test) CreateClaim(name, class, size string) *v1.PersistentVolumeClaim {
	tc.t.Helper()
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tc.Namespace},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			Resources: v1.VolumeResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			},
		},
	}
	pvc, err := tc.Kube.CoreV1().PersistentVolumeClaims(tc.Namespace).Create(tc.Ctx, pvc, metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatalf("creating PersistentVolumeClaim %s: %v", name, err)
	}
	return pvc
}

// ClaimVolume is a pod volume named name that mounts the claim.
func ClaimVolume(name, claim string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
	}}
}

// noFinalizers is the merge patch that empties an object's finalizers.
var noFinalizers = []byte(`{"metadata":{"finalizers":null}}`)

// deleteStorage deletes the test's PersistentVolumeClaims, its
// PersistentVolumes and its storage classes. The API server gives claims
// and volumes a protection finalizer that only kube-controller-manager's
// pvc-protection and pv-protection controllers remove, and they do not
// run: the finalizers are emptied first, so that the deletes finish at
// once.
func (tc *Test) deleteStorage() {
	t, ctx := tc.t, tc.Ctx
	claims := tc.Kube.CoreV1().PersistentVolumeClaims(tc.Namespace)
	if list, err := claims.List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("cleanup: listing PersistentVolumeClaims: %v", err)
	} else if err := Parallel(len(list.Items), cleanupWorkers, func(i int) error {
		name := list.Items[i].Name
		return deleteUnprotected(ctx, name, "PersistentVolumeClaim",
			func(ctx context.Context) error {
				_, err := claims.Patch(ctx, name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
				return err
			},
			func(ctx context.Context) error { return claims.Delete(ctx, name, metav1.DeleteOptions{}) })
	}); err != nil {
		t.Errorf("cleanup: %v", err)
	}
	tc.mu.Lock()
	volumes := append([]string(nil), tc.volumes...)
	classes := append([]string(nil), tc.storageClasses...)
	tc.mu.Unlock()
	pvs := tc.Kube.CoreV1().PersistentVolumes()
	for _, name := range volumes {
		err := deleteUnprotected(ctx, name, "PersistentVolume",
			func(ctx context.Context) error {
				_, err := pvs.Patch(ctx, name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
				return err
			},
			func(ctx context.Context) error { return pvs.Delete(ctx, name, metav1.DeleteOptions{}) })
		if err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	for _, name := range classes {
		if err := ignoreNotFound(tc.Kube.StorageV1().StorageClasses().Delete(ctx, name, metav1.DeleteOptions{})); err != nil {
			t.Errorf("cleanup: deleting storage class %s: %v", name, err)
		}
	}
}

// deleteUnprotected empties an object's finalizers, then deletes it; an
// object already gone is no error.
func deleteUnprotected(ctx context.Context, name, kind string, unprotect, del func(context.Context) error) error {
	if err := ignoreNotFound(unprotect(ctx)); err != nil {
		return fmt.Errorf("emptying the finalizers of %s %s: %w", kind, name, err)
	}
	if err := ignoreNotFound(del(ctx)); err != nil {
		return fmt.Errorf("deleting %s %s: %w", kind, name, err)
	}
	return nil
}

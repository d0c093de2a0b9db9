package harness

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The scheduler runs with the permissions the deploy manifest gives its
// ServiceAccount, unchanged: the manifest's Namespace, ServiceAccount and
// RBAC objects are applied as they are, and the scheduler's static token
// authenticates as that ServiceAccount's user, so the manifest's own
// bindings apply. A call the manifest does not allow fails here as it would
// in a cluster.

// rbacKinds are the kinds applied from the manifest, in the order they are
// applied; anything else in it (ConfigMap, Deployment, ...) is skipped.
var rbacKinds = []struct {
	kind string
	gvr  schema.GroupVersionResource
}{
	{"Namespace", schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}},
	{"ServiceAccount", schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}},
	{"ClusterRole", rbacGVR("clusterroles")},
	{"Role", rbacGVR("roles")},
	{"ClusterRoleBinding", rbacGVR("clusterrolebindings")},
	{"RoleBinding", rbacGVR("rolebindings")},
}

func rbacGVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
}

func rbacOrder(kind string) int {
	for i, k := range rbacKinds {
		if k.kind == kind {
			return i
		}
	}
	return -1
}

// schedulerIdentity is what the deploy manifest runs the scheduler as.
type schedulerIdentity struct {
	user    string   // system:serviceaccount:<namespace>:<name>
	groups  []string // the groups a ServiceAccount token carries
	objects []*unstructured.Unstructured
}

// readSchedulerIdentity reads the RBAC objects of the manifest, which must
// hold exactly one ServiceAccount.
func readSchedulerIdentity(path string) (schedulerIdentity, error) {
	objs, err := readManifests(path)
	if err != nil {
		return schedulerIdentity{}, err
	}
	var id schedulerIdentity
	for _, o := range objs {
		if rbacOrder(o.GetKind()) < 0 {
			continue
		}
		id.objects = append(id.objects, o)
		if o.GetKind() == "ServiceAccount" {
			if id.user != "" {
				return id, fmt.Errorf("%s: more than one ServiceAccount; cannot tell which one the scheduler runs as", path)
			}
			ns := o.GetNamespace()
			id.user = "system:serviceaccount:" + ns + ":" + o.GetName()
			id.groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
		}
	}
	if id.user == "" {
		return id, fmt.Errorf("%s: no ServiceAccount for the scheduler", path)
	}
	sort.SliceStable(id.objects, func(i, j int) bool {
		return rbacOrder(id.objects[i].GetKind()) < rbacOrder(id.objects[j].GetKind())
	})
	return id, nil
}

// applySchedulerRBAC creates the manifest's Namespace, ServiceAccount and
// RBAC objects.
func (c *Cluster) applySchedulerRBAC(ctx context.Context) error {
	for _, o := range c.identity.objects {
		gvr := rbacKinds[rbacOrder(o.GetKind())].gvr
		var err error
		if ns := o.GetNamespace(); ns != "" {
			_, err = c.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, o, metav1.CreateOptions{})
		} else {
			_, err = c.Dynamic.Resource(gvr).Create(ctx, o, metav1.CreateOptions{})
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("applying %s %s from %s: %w", o.GetKind(), o.GetName(), c.Config.RBACManifest, err)
		}
	}
	return nil
}

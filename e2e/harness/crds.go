package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

// The apiextensions client is not in the module graph; CRDs go through the
// dynamic client instead.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// applyCRDs creates every CRD manifest in Config.CRDDir, then those of
// Config.VolcanoCRDDir (Volcano's release, for its controllers) that
// Config.CRDDir does not define, waits until each is Established, then
// until the Volcano client can list PodGroups and Queues (the serving
// handler is installed shortly after Established).
func (c *Cluster) applyCRDs(ctx context.Context) error {
	own, err := c.createCRDs(ctx, c.Config.CRDDir, nil)
	if err != nil {
		return err
	}
	if len(own) == 0 {
		return fmt.Errorf("no CRD manifests in %s", c.Config.CRDDir)
	}
	release, err := c.createCRDs(ctx, c.Config.VolcanoCRDDir, own)
	if err != nil {
		return err
	}
	c.volcanoCRDs = len(release) > 0
	for _, name := range append(own, release...) {
		if err := c.waitEstablished(ctx, name); err != nil {
			return err
		}
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, errPG := c.Volcano.SchedulingV1beta1().PodGroups("default").List(ctx, metav1.ListOptions{Limit: 1})
		_, errQ := c.Volcano.SchedulingV1beta1().Queues().List(ctx, metav1.ListOptions{Limit: 1})
		return errPG == nil && errQ == nil, nil
	})
}

// createCRDs creates the CRDs of every manifest in dir but those named in
// skip, and returns the names of those it created (or found existing). A
// missing dir has none.
func (c *Cluster) createCRDs(ctx context.Context, dir string, skip []string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			if slices.Contains(skip, obj.GetName()) {
				continue
			}
			_, err = c.Dynamic.Resource(crdResource).Create(ctx, obj, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("creating CRD from %s: %w", f, err)
			}
			names = append(names, obj.GetName())
		}
	}
	return names, nil
}

func (c *Cluster) waitEstablished(ctx context.Context, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := c.Dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s not Established: %w", name, err)
	}
	return nil
}

// readManifests reads the objects of a multi-document YAML file, skipping
// documents that hold only comments.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for i, doc := range splitDocuments(string(data)) {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, i+1, err)
		}
		if string(js) == "null" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, i+1, err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// splitDocuments splits a YAML stream at its "---" separator lines.
func splitDocuments(s string) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.TrimRight(line, " \t\r\n") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}

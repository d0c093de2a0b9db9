// Command check validates the deployment manifests without a cluster, for
// `make deploy-check`:
//
//   - every document decodes strictly (no unknown or duplicate fields) into
//     its Kubernetes type, or is one of Volcano's CustomResourceDefinitions;
//   - every namespaced object names a Namespace the manifests create;
//   - the Deployment agrees with the rest: its flags exist in
//     `caldera run --help` of the binary given by -caldera, the scheduler
//     configuration it names is a key of a mounted ConfigMap and loads as
//     `caldera run` loads it, its ports match its address flags, and its
//     service account has the ClusterRole and the Lease Role bound.
//
// Usage:
//
//	go run ./deploy/check -caldera build/caldera deploy/caldera.yaml deploy/crds/*.yaml
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

func main() {
	caldera := flag.String("caldera", "build/caldera", "caldera binary whose `run --help` lists the known flags")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: check -caldera BINARY MANIFEST...")
		os.Exit(2)
	}
	if err := run(*caldera, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "deploy-check:", err)
		os.Exit(1)
	}
}

func run(caldera string, files []string) error {
	runFlags, err := knownRunFlags(caldera)
	if err != nil {
		return err
	}
	var m manifests
	for _, f := range files {
		if err := m.load(f); err != nil {
			return err
		}
	}
	errs := m.check(runFlags)
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, "deploy-check:", e)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d problems", len(errs))
	}
	fmt.Printf("deploy-check: %d objects in %d files are valid\n", len(m.objects), len(files))
	return nil
}

// knownRunFlags returns the long flag names that `caldera run --help` prints.
func knownRunFlags(caldera string) (map[string]bool, error) {
	out, err := exec.Command(caldera, "run", "--help").Output()
	if err != nil {
		return nil, fmt.Errorf("%s run --help: %w", caldera, err)
	}
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`--([a-z][a-z0-9-]*)`).FindAllSubmatch(out, -1) {
		names[string(m[1])] = true
	}
	if !names["scheduler-conf"] {
		return nil, fmt.Errorf("%s run --help does not list --scheduler-conf: not a caldera binary?", caldera)
	}
	return names, nil
}

// object is one decoded document and where it came from.
type object struct {
	source string
	gvk    schema.GroupVersionKind
	name   string
	ns     string
	obj    runtime.Object // nil for a CustomResourceDefinition
	crd    *crd
}

// crd holds the fields of a CustomResourceDefinition this check reads;
// apiextensions types are not a dependency of this module.
type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
	} `json:"spec"`
}

type manifests struct{ objects []object }

var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

func (m *manifests) load(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		o, err := decode(doc)
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		o.source = fmt.Sprintf("%s: %s %s", path, o.gvk.Kind, o.name)
		m.objects = append(m.objects, o)
	}
}

// decode reads a document strictly into the type its apiVersion and kind name.
func decode(doc []byte) (object, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return object{}, err
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return object{}, err
	}
	o := object{gvk: gv.WithKind(head.Kind), name: head.Metadata.Name, ns: head.Metadata.Namespace}
	if o.name == "" {
		return o, fmt.Errorf("%s without metadata.name", head.Kind)
	}
	if o.gvk == crdGVK {
		o.crd = &crd{}
		return o, yaml.Unmarshal(doc, o.crd)
	}
	// The API server's own decoder: field names are case-sensitive, and an
	// unknown or duplicate field is an error, not a dropped value.
	o.obj, _, err = strictDecoder.Decode(doc, nil, nil)
	if err != nil {
		return o, fmt.Errorf("%s %s: %w", head.Kind, o.name, err)
	}
	return o, nil
}

var strictDecoder = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// stripComments drops comment-only lines, so that a document of comments
// counts as empty.
func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

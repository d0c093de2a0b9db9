package simulator

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
	nodeinfov1alpha1 "volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
	vcscheme "volcano.sh/apis/pkg/client/clientset/versioned/scheme"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Cluster is the content of a cluster file: the objects the embedded API
// server starts with, in file order.
type Cluster struct {
	Namespaces      []*v1.Namespace
	Nodes           []*v1.Node
	Pods            []*v1.Pod
	PriorityClasses []*schedulingv1.PriorityClass
	PodGroups       []*v1beta1.PodGroup
	Queues          []*v1beta1.Queue
	HyperNodes      []*topologyv1alpha1.HyperNode
	Numatopologies  []*nodeinfov1alpha1.Numatopology
	// Workloads are the Services, ReplicationControllers, ReplicaSets and
	// StatefulSets, read only for the selectors that give pods without
	// spread constraints kube-scheduler's default ones, and the
	// PodDisruptionBudgets and ResourceQuotas the pdb and resourcequota
	// plugins read.
	Workloads []runtime.Object
	// Storage are the PersistentVolumeClaims, PersistentVolumes,
	// StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities and
	// VolumeAttachments the volume filters read, defaulted as the API
	// server and the PV controller would have left them (storage.go), and
	// the ResourceClaims, ResourceSlices and DeviceClasses the device
	// filter reads.
	Storage []runtime.Object
}

// creationBase is the creation time given to objects that state none; later
// documents get later times, so that file order breaks ties as a user
// expects.
var creationBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// defaultMaxPods is the kubelet's default --max-pods, the pod count of a
// node manifest that gives none.
const defaultMaxPods = "110"

// LoadCluster reads a multi-document manifest file.
func LoadCluster(path string) (*Cluster, error) {
	data, err := regularfile.Read(path, regularfile.MaxCluster)
	if err != nil {
		return nil, fmt.Errorf("cluster file: %w", err)
	}
	return ParseCluster(data, path)
}

// manifestDecoder is built once: registering every client-go and Volcano
// type takes tens of milliseconds, and the decoder only reads its scheme.
// Strict: a field given twice or unknown to the API version is an error,
// as kubectl's server-side field validation makes it, where a lenient
// decoder would keep the last value or drop the field.
var manifestDecoder = sync.OnceValues(func() (runtime.Decoder, error) {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := vcscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer(), nil
})

// ParseCluster decodes manifests of the supported kinds: v1 Node, Pod,
// Namespace, Service, ReplicationController, ResourceQuota; apps/v1
// ReplicaSet and StatefulSet; policy/v1 PodDisruptionBudget;
// scheduling.k8s.io/v1 PriorityClass; scheduling.volcano.sh/v1beta1
// PodGroup and Queue; topology.volcano.sh/v1alpha1 HyperNode;
// nodeinfo.volcano.sh/v1alpha1 Numatopology. Any other kind, a malformed
// document or an invalid object is an error naming the document.
func ParseCluster(data []byte, source string) (*Cluster, error) {
	decoder, err := manifestDecoder()
	if err != nil {
		return nil, err
	}
	docs, err := splitDocuments(data, source)
	if err != nil {
		return nil, err
	}
	decoded := decodeAll(decoder, docs)
	c := &Cluster{}
	defined := map[string]int{} // the document of each object, by kind and name
	for i, d := range decoded {
		doc := i + 1
		if d.err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", source, doc, d.err)
		}
		obj, gvk := d.obj, d.gvk
		where := func() string {
			m, _ := obj.(metav1.Object)
			name := ""
			if m != nil {
				name = m.GetName()
				if ns := m.GetNamespace(); ns != "" {
					name = ns + "/" + name
				}
			}
			return fmt.Sprintf("%s: document %d (%s %s)", source, doc, gvk.Kind, name)
		}
		if err := c.add(obj, doc); err != nil {
			return nil, fmt.Errorf("%s: %v", where(), err)
		}
		// Two objects of one name would be two creates of one object in the
		// API server, whose second fails: the file is refused instead.
		m := obj.(metav1.Object) // add accepts nothing else
		key := gvk.Kind + " " + m.GetNamespace() + "/" + m.GetName()
		if first, ok := defined[key]; ok {
			return nil, fmt.Errorf("%s: defined twice, first in document %d", where(), first)
		}
		defined[key] = doc
	}
	return c, nil
}

// splitDocuments cuts the manifests into their documents, leaving out the
// empty ones (comments only), so that a document's number counts the
// others, as an error names it.
func splitDocuments(data []byte, source string) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", source, len(docs)+1, err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		docs = append(docs, raw)
	}
}

// decodedDoc is one document's object, or why it could not be decoded.
type decodedDoc struct {
	obj runtime.Object
	gvk *schema.GroupVersionKind
	err error
}

// decodeAll decodes the documents on every CPU: turning YAML into objects
// is most of what loading a large cluster costs (a quarter of `caldera
// simulate` at 5,000 nodes and 10,000 pods), and the decoder is safe for
// concurrent use. The results keep the documents' order.
func decodeAll(decoder runtime.Decoder, docs [][]byte) []decodedDoc {
	out := make([]decodedDoc, len(docs))
	workers := min(goruntime.GOMAXPROCS(0), len(docs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(docs) {
					return
				}
				// Converted once here: the strict decoder would convert
				// the YAML twice, once to find keys given twice and once
				// to decode, where the JSON it is given costs one pass.
				js, err := yaml.YAMLToJSONStrict(docs[i])
				if err != nil {
					out[i].err = err
					continue
				}
				obj, gvk, err := decoder.Decode(js, nil, nil)
				out[i] = decodedDoc{obj: obj, gvk: gvk, err: err}
			}
		}()
	}
	wg.Wait()
	return out
}

func stripComments(b []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || string(t) == "---" {
			continue
		}
		out.Write(line)
	}
	return out.Bytes()
}

func (c *Cluster) add(obj runtime.Object, doc int) error {
	m, ok := obj.(metav1.Object)
	if !ok {
		return fmt.Errorf("unsupported object")
	}
	if m.GetName() == "" {
		return fmt.Errorf("metadata.name is required")
	}
	if ts := m.GetCreationTimestamp(); ts.IsZero() {
		m.SetCreationTimestamp(metav1.NewTime(creationBase.Add(time.Duration(doc) * time.Second)))
	}
	switch o := obj.(type) {
	case *v1.Namespace:
		c.Namespaces = append(c.Namespaces, o)
	case *v1.Node:
		if err := validateResources(o.Status.Allocatable, "status.allocatable"); err != nil {
			return err
		}
		if err := validateResources(o.Status.Capacity, "status.capacity"); err != nil {
			return err
		}
		if _, _, _, _, err := nodeUsageAnnotation(o); err != nil {
			return err
		}
		if len(o.Status.Capacity) == 0 {
			o.Status.Capacity = o.Status.Allocatable.DeepCopy()
		}
		if len(o.Status.Allocatable) == 0 {
			o.Status.Allocatable = o.Status.Capacity.DeepCopy()
		}
		// A kubelet always reports a pod count (110 unless --max-pods says
		// otherwise); a hand-written node without one would take no pod.
		for _, rl := range []v1.ResourceList{o.Status.Capacity, o.Status.Allocatable} {
			if _, ok := rl[v1.ResourcePods]; !ok && rl != nil {
				rl[v1.ResourcePods] = resource.MustParse(defaultMaxPods)
			}
		}
		c.Nodes = append(c.Nodes, o)
	case *v1.Pod:
		defaultNamespace(o)
		if len(o.Spec.Containers) == 0 {
			return fmt.Errorf("spec.containers: a pod needs at least one container")
		}
		if err := validatePodResources(&o.Spec); err != nil {
			return err
		}
		if o.UID == "" {
			o.UID = types.UID(o.Namespace + "-" + o.Name)
		}
		if o.Status.Phase == "" {
			o.Status.Phase = v1.PodPending
			if o.Spec.NodeName != "" {
				o.Status.Phase = v1.PodRunning
			}
		}
		c.Pods = append(c.Pods, o)
	case *v1.Service, *v1.ReplicationController, *appsv1.ReplicaSet, *appsv1.StatefulSet, *policyv1.PodDisruptionBudget:
		defaultNamespace(m)
		c.Workloads = append(c.Workloads, obj)
	case *v1.ResourceQuota:
		defaultNamespace(m)
		for field, rl := range map[string]v1.ResourceList{"spec.hard": o.Spec.Hard, "status.hard": o.Status.Hard, "status.used": o.Status.Used} {
			if err := validateResources(rl, field); err != nil {
				return err
			}
		}
		c.Workloads = append(c.Workloads, obj)
	case *v1.PersistentVolumeClaim, *v1.PersistentVolume, *storagev1.StorageClass, *storagev1.CSINode,
		*storagev1.CSIDriver, *storagev1.CSIStorageCapacity, *storagev1.VolumeAttachment,
		*resourcev1beta1.ResourceClaim, *resourcev1beta1.ResourceSlice, *resourcev1beta1.DeviceClass:
		if err := defaultStorage(obj); err != nil {
			return err
		}
		c.Storage = append(c.Storage, obj)
	case *schedulingv1.PriorityClass:
		c.PriorityClasses = append(c.PriorityClasses, o)
	case *v1beta1.PodGroup:
		defaultNamespace(o)
		if o.Spec.MinMember < 0 {
			return fmt.Errorf("spec.minMember: must not be negative, got %d", o.Spec.MinMember)
		}
		c.PodGroups = append(c.PodGroups, o)
	case *v1beta1.Queue:
		if o.Spec.Weight < 0 {
			return fmt.Errorf("spec.weight: must not be negative, got %d", o.Spec.Weight)
		}
		if o.Spec.Weight == 0 {
			o.Spec.Weight = 1
		}
		if o.Status.State == "" {
			o.Status.State = v1beta1.QueueStateOpen
		}
		c.Queues = append(c.Queues, o)
	case *topologyv1alpha1.HyperNode:
		if err := validateHyperNode(o); err != nil {
			return err
		}
		c.HyperNodes = append(c.HyperNodes, o)
	case *nodeinfov1alpha1.Numatopology:
		// What the cache would read past with a log line is refused here.
		if _, faults := api.NewNumaInfo(o); len(faults) > 0 {
			return faults[0]
		}
		c.Numatopologies = append(c.Numatopologies, o)
	default:
		return fmt.Errorf("unsupported kind: expected v1 Node, Pod, Namespace, Service, ReplicationController, ResourceQuota, PersistentVolumeClaim or PersistentVolume, storage.k8s.io/v1 StorageClass, CSINode, CSIDriver, CSIStorageCapacity or VolumeAttachment, resource.k8s.io/v1beta1 ResourceClaim, ResourceSlice or DeviceClass, apps/v1 ReplicaSet or StatefulSet, policy/v1 PodDisruptionBudget, scheduling.k8s.io/v1 PriorityClass, scheduling.volcano.sh/v1beta1 PodGroup or Queue, topology.volcano.sh/v1alpha1 HyperNode, or nodeinfo.volcano.sh/v1alpha1 Numatopology")
	}
	return nil
}

func defaultNamespace(m metav1.Object) {
	if m.GetNamespace() == "" {
		m.SetNamespace(metav1.NamespaceDefault)
	}
}

func validateResources(rl v1.ResourceList, field string) error {
	for name, q := range rl {
		if q.Sign() < 0 {
			return fmt.Errorf("%s.%s: must not be negative, got %s", field, name, q.String())
		}
		if err := api.CheckQuantity(name, q); err != nil {
			return fmt.Errorf("%s.%v", field, err)
		}
	}
	return nil
}

// validatePodResources checks what a pod asks of every container, init
// containers and overhead included.
func validatePodResources(spec *v1.PodSpec) error {
	check := func(kind string, cs []v1.Container) error {
		for i, c := range cs {
			for field, rl := range map[string]v1.ResourceList{"requests": c.Resources.Requests, "limits": c.Resources.Limits} {
				if err := validateResources(rl, fmt.Sprintf("spec.%s[%d].resources.%s", kind, i, field)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := check("containers", spec.Containers); err != nil {
		return err
	}
	if err := check("initContainers", spec.InitContainers); err != nil {
		return err
	}
	return validateResources(spec.Overhead, "spec.overhead")
}

// validateHyperNode refuses what Volcano's HyperNode webhook refuses and
// what the scheduler would otherwise skip: a member of an unknown type, a
// HyperNode member not named exactly, a Node member selecting nothing or
// with a regex that does not compile.
func validateHyperNode(hn *topologyv1alpha1.HyperNode) error {
	if hn.Spec.Tier < 0 {
		return fmt.Errorf("spec.tier: must not be negative, got %d", hn.Spec.Tier)
	}
	for i, m := range hn.Spec.Members {
		field := fmt.Sprintf("spec.members[%d]", i)
		sel := m.Selector
		switch m.Type {
		case topologyv1alpha1.MemberTypeHyperNode:
			if sel.ExactMatch == nil || sel.ExactMatch.Name == "" {
				return fmt.Errorf("%s: a HyperNode member is selected by exactMatch.name only", field)
			}
		case topologyv1alpha1.MemberTypeNode:
			if (sel.ExactMatch == nil || sel.ExactMatch.Name == "") && sel.RegexMatch == nil && sel.LabelMatch == nil {
				return fmt.Errorf("%s.selector: one of exactMatch, regexMatch or labelMatch is required", field)
			}
			if sel.RegexMatch != nil {
				if _, err := regexp.Compile(sel.RegexMatch.Pattern); err != nil {
					return fmt.Errorf("%s.selector.regexMatch.pattern: %v", field, err)
				}
			}
			if sel.LabelMatch != nil {
				if _, err := metav1.LabelSelectorAsSelector(sel.LabelMatch); err != nil {
					return fmt.Errorf("%s.selector.labelMatch: %v", field, err)
				}
			}
		default:
			return fmt.Errorf("%s.type: expected Node or HyperNode, got %q", field, m.Type)
		}
	}
	return nil
}

package benchmarks

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Workload describes a synthetic cluster: identical nodes, one queue, and
// pending gangs whose pods share one template.
type Workload struct {
	Nodes    int
	Gangs    int
	GangSize int
	// SoftTaints gives every tenth node a PreferNoSchedule taint, which
	// the pods do not tolerate: nodeorder's taint strategy then scores
	// nodes apart, so its port promises no node-local scores.
	SoftTaints bool
	// PodRules labels nodes with ten zones and gives a fifth of the gangs
	// required hostname anti-affinity among their own pods and another
	// fifth a zone spread constraint (maxSkew 1, DoNotSchedule).
	PodRules bool
	// Topology puts the nodes under a three-tier HyperNode tree (64 leaves
	// by label under 8 spines, the cluster top above) and gives every gang
	// networkTopology hard, highestTierAllowed 2.
	Topology bool
	// Volumes gives every node one local volume (10Gi, class local, pinned
	// to the node) and every tenth gang's pods a claim each of that
	// WaitForFirstConsumer class (5Gi), as kube-scheduler's local-volume
	// benchmarks do.
	Volumes bool
	// Devices makes every node publish a ResourceSlice of 8 GPUs (class
	// gpu) and gives every tenth gang's pods (another tenth than
	// Volumes') a ResourceClaim each for one GPU.
	Devices bool
	// Churn changes a tenth of the nodes (a new label) and replaces a
	// tenth of the gangs' pods (new pods, new UIDs) before every timed
	// session, a different tenth each time (runSessions calls Churn): what
	// a Wasm module then receives is a tenth of the view, not an empty
	// delta. Not with Volumes or Devices.
	Churn bool
}

// Name is the workload as benchmark names give it.
func (w Workload) Name() string {
	name := fmt.Sprintf("nodes=%d/pods=%d", w.Nodes, w.Gangs*w.GangSize)
	if w.SoftTaints {
		name += ",soft-taints"
	}
	if w.PodRules {
		name += ",pod-rules"
	}
	if w.Topology {
		name += ",topology"
	}
	if w.Volumes {
		name += ",volumes"
	}
	if w.Devices {
		name += ",devices"
	}
	if w.Churn {
		name += ",churn"
	}
	return name
}

// Cluster builds the workload's snapshot: nodes of 32 CPU, 128Gi and 110 pod
// slots; pods of 1 CPU and 2Gi; PodGroups Pending with minMember = gang size
// and minResources set, as Volcano's controller creates them.
func (w Workload) Cluster() *api.ClusterInfo {
	c := api.NewClusterInfo()
	queue := &v1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec:       v1beta1.QueueSpec{Weight: 1},
		Status:     v1beta1.QueueStatus{State: v1beta1.QueueStateOpen},
	}
	c.Queues["default"] = api.NewQueueInfo(queue)
	for i := 0; i < w.Nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		node := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
			Status: v1.NodeStatus{
				Allocatable: v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse("32"),
					v1.ResourceMemory: resource.MustParse("128Gi"),
					v1.ResourcePods:   resource.MustParse("110"),
				},
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			},
		}
		node.Status.Capacity = node.Status.Allocatable
		if w.PodRules {
			node.Labels[v1.LabelTopologyZone] = fmt.Sprintf("zone-%d", i%10)
		}
		if w.Topology {
			node.Labels[leafLabel] = leafName(i * topologyLeaves / w.Nodes)
		}
		if w.SoftTaints && i%10 == 0 {
			node.Spec.Taints = []v1.Taint{{Key: "bench/soft", Value: "true", Effect: v1.TaintEffectPreferNoSchedule}}
		}
		c.Nodes[name] = api.NewNodeInfo(node)
		c.NodeList = append(c.NodeList, name)
	}
	if w.Volumes {
		c.Storage = localVolumes(c.NodeList)
	}
	if w.Devices {
		c.Devices = gpuSlices(c.NodeList)
	}
	for g := 0; g < w.Gangs; g++ {
		job := w.gang(c, g, 0)
		c.Jobs[job.UID] = job
	}
	if w.Topology {
		c.HyperNodes = hyperNodeTree()
	}
	return c
}

// churn changes the round's tenth of the nodes and of the gangs of a
// cluster built by Cluster, in place.
func (w Workload) churn(c *api.ClusterInfo, round int) {
	if w.Volumes || w.Devices {
		panic("benchmarks: churn is for workloads without volumes and devices")
	}
	for i := 0; i < w.Nodes/10; i++ {
		name := c.NodeList[(round*(w.Nodes/10)+i)%w.Nodes]
		node := c.Nodes[name].Node.DeepCopy()
		node.Labels["bench/churn"] = fmt.Sprint(round)
		c.Nodes[name] = api.NewNodeInfo(node)
	}
	for i := 0; i < w.Gangs/10; i++ {
		job := w.gang(c, (round*(w.Gangs/10)+i)%w.Gangs, round)
		c.Jobs[job.UID] = job
	}
}

// gang builds gang g; from round 1 on its pods are new objects with new
// names and UIDs.
func (w Workload) gang(c *api.ClusterInfo, g, round int) *api.JobInfo {
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	name := fmt.Sprintf("gang-%05d", g)
	minRes := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(int64(w.GangSize), resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(int64(w.GangSize)*2<<30, resource.BinarySI),
	}
	pg := &v1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name, CreationTimestamp: metav1.NewTime(created.Add(time.Duration(g) * time.Second))},
		Spec:       v1beta1.PodGroupSpec{MinMember: int32(w.GangSize), Queue: "default", MinResources: &minRes},
		Status:     v1beta1.PodGroupStatus{Phase: v1beta1.PodGroupPending},
	}
	if w.Topology {
		tier := 2
		pg.Spec.NetworkTopology = &v1beta1.NetworkTopologySpec{Mode: v1beta1.HardNetworkTopologyMode, HighestTierAllowed: &tier}
	}
	job := api.NewJobInfo(api.JobID("bench/" + name))
	job.SetPodGroup(pg)
	spec := podSpec()
	labels := map[string]string{"app": name}
	if w.PodRules {
		addPodRules(&spec, labels, g)
	}
	for p := 0; p < w.GangSize; p++ {
		spec := spec
		if w.Volumes && g%10 == 0 {
			spec.Volumes = []v1.Volume{claimVolume(c.Storage, fmt.Sprintf("%s-data-%d", name, p))}
		}
		if w.Devices && g%10 == 5 {
			addGPUClaim(&spec, c.Devices, fmt.Sprintf("%s-gpu-%d", name, p))
		}
		podName, uid := fmt.Sprintf("%s-worker-%d", name, p), fmt.Sprintf("%s-%d", name, p)
		if round > 0 {
			podName, uid = fmt.Sprintf("%s-r%d", podName, round), fmt.Sprintf("%s-r%d", uid, round)
		}
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:         "bench",
				Name:              podName,
				UID:               types.UID(uid),
				Labels:            labels,
				Annotations:       map[string]string{api.GroupNameAnnotation: name},
				CreationTimestamp: pg.CreationTimestamp,
			},
			Spec:   spec,
			Status: v1.PodStatus{Phase: v1.PodPending},
		}
		job.AddTaskInfo(api.NewTaskInfo(pod))
	}
	return job
}

// The topology workload's tree: 64 leaves of consecutive nodes, 8 leaves to
// a spine.
const (
	topologyLeaves = 64
	leavesPerSpine = 8
	leafLabel      = "bench/leaf"
)

func leafName(i int) string { return fmt.Sprintf("leaf-%02d", i) }

func hyperNodeTree() []*topologyv1alpha1.HyperNode {
	var out []*topologyv1alpha1.HyperNode
	for s := 0; s < topologyLeaves/leavesPerSpine; s++ {
		spine := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("spine-%d", s)}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: 2}}
		for l := s * leavesPerSpine; l < (s+1)*leavesPerSpine; l++ {
			out = append(out, &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: leafName(l)}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: 1,
				Members: []topologyv1alpha1.MemberSpec{{Type: topologyv1alpha1.MemberTypeNode, Selector: topologyv1alpha1.MemberSelector{
					LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{leafLabel: leafName(l)}}}}}}})
			spine.Spec.Members = append(spine.Spec.Members, topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeHyperNode,
				Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: leafName(l)}}})
		}
		out = append(out, spine)
	}
	return out
}

func podSpec() v1.PodSpec {
	return v1.PodSpec{
		SchedulerName: "volcano",
		Containers: []v1.Container{{
			Name:  "main",
			Image: "trainer",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU:    resource.MustParse("1"),
				v1.ResourceMemory: resource.MustParse("2Gi"),
			}},
		}},
	}
}

// addPodRules gives gang g's pods, as PodRules says, hostname anti-affinity
// or zone spread among themselves.
func addPodRules(spec *v1.PodSpec, labels map[string]string, g int) {
	own := &metav1.LabelSelector{MatchLabels: labels}
	switch g % 5 {
	case 1:
		spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: own, TopologyKey: v1.LabelHostname}},
		}}
	case 2:
		spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: own,
		}}
	}
}

// localVolumeClass is the Volumes workload's WaitForFirstConsumer class.
const localVolumeClass = "local"

// localVolumes makes the Volumes workload's storage: the class and one
// local volume per node.
func localVolumes(nodes []string) *api.Storage {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	st := &api.Storage{
		Claims:  map[string]*v1.PersistentVolumeClaim{},
		Volumes: map[string]*v1.PersistentVolume{},
		Classes: map[string]*storagev1.StorageClass{localVolumeClass: {
			ObjectMeta:        metav1.ObjectMeta{Name: localVolumeClass},
			Provisioner:       "kubernetes.io/no-provisioner",
			VolumeBindingMode: &wait,
		}},
	}
	for _, n := range nodes {
		pv := &v1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "local-" + n},
			Spec: v1.PersistentVolumeSpec{
				Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
				StorageClassName:       localVolumeClass,
				PersistentVolumeSource: v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{Path: "/mnt/disk"}},
				NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{n}}},
				}}}},
			},
			Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
		}
		st.Volumes[pv.Name] = pv
	}
	return st
}

// claimVolume adds a pending 5Gi claim of the local class to st and
// returns the pod volume that uses it.
func claimVolume(st *api.Storage, name string) v1.Volume {
	class := localVolumeClass
	st.Claims["bench/"+name] = &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name, UID: types.UID("claim-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("5Gi")}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
	return v1.Volume{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
}

// gpuSlices makes the Devices workload's objects: the class gpu and one
// ResourceSlice of 8 GPUs per node.
func gpuSlices(nodes []string) *api.Devices {
	d := &api.Devices{Classes: []*resourcev1beta1.DeviceClass{{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1beta1.DeviceClassSpec{Selectors: []resourcev1beta1.DeviceSelector{{
			CEL: &resourcev1beta1.CELDeviceSelector{Expression: `device.driver == "gpu.bench"`},
		}}},
	}}}
	for _, n := range nodes {
		sl := &resourcev1beta1.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: n + "-gpus"},
			Spec: resourcev1beta1.ResourceSliceSpec{
				Driver: "gpu.bench", NodeName: n,
				Pool: resourcev1beta1.ResourcePool{Name: n, Generation: 1, ResourceSliceCount: 1},
			},
		}
		for i := 0; i < 8; i++ {
			sl.Spec.Devices = append(sl.Spec.Devices, resourcev1beta1.Device{Name: fmt.Sprintf("gpu-%d", i), Basic: &resourcev1beta1.BasicDevice{}})
		}
		d.Slices = append(d.Slices, sl)
	}
	return d
}

// addGPUClaim adds a pending one-GPU claim to d and makes the pod use it.
func addGPUClaim(spec *v1.PodSpec, d *api.Devices, name string) {
	d.Claims = append(d.Claims, &resourcev1beta1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name, UID: types.UID("claim-" + name)},
		Spec: resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{Requests: []resourcev1beta1.DeviceRequest{{
			Name: "gpu", DeviceClassName: "gpu", AllocationMode: resourcev1beta1.DeviceAllocationModeExactCount, Count: 1,
		}}}},
	})
	spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}
	spec.Containers = append([]v1.Container(nil), spec.Containers...)
	spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: "gpu"}}
}

package api

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// What the native plugins and the Wasm runtime read of a pod the same way:
// the runtime sends it to the ports, which must see what the natives see.

// ScoringRequests are a pod's requests as kube-scheduler's resource
// scoring strategies count them: milli-CPU, memory bytes and
// nvidia.com/gpu devices as written, and milli-CPU and memory with
// kube-scheduler's stand-ins (100m, 200 MiB) for containers that request
// none.
type ScoringRequests struct {
	MilliCPU, Memory, GPU          int64
	NonZeroMilliCPU, NonZeroMemory int64
}

// kube-scheduler's stand-ins for a container that requests no cpu or memory.
const (
	defaultMilliCPURequest int64 = 100
	defaultMemoryRequest   int64 = 200 * 1024 * 1024
)

var (
	// Volcano's vendored kube-scheduler runs with InPlacePodVerticalScaling and
	// PodLevelResources on, their defaults.
	plainRequests   = resourcehelper.PodResourcesOptions{UseStatusResources: true}
	nonZeroRequests = resourcehelper.PodResourcesOptions{
		UseStatusResources: true,
		NonMissingContainerRequests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(defaultMilliCPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(defaultMemoryRequest, resource.DecimalSI),
		},
	}
)

// PodScoringRequests reads a pod's ScoringRequests; a nil pod has none.
func PodScoringRequests(pod *v1.Pod) ScoringRequests {
	if pod == nil {
		return ScoringRequests{}
	}
	plain := resourcehelper.PodRequests(pod, plainRequests)
	nz := resourcehelper.PodRequests(pod, nonZeroRequests)
	cpu, mem, gpu := plain[v1.ResourceCPU], plain[v1.ResourceMemory], plain[GPUResourceName]
	nzCPU, nzMem := nz[v1.ResourceCPU], nz[v1.ResourceMemory]
	return ScoringRequests{
		MilliCPU: cpu.MilliValue(), Memory: mem.Value(), GPU: gpu.Value(),
		NonZeroMilliCPU: nzCPU.MilliValue(), NonZeroMemory: nzMem.Value(),
	}
}

// NormalizedImageName gives an image without a tag kube-scheduler's
// ":latest"; node status lists images with their tags.
func NormalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}

// PodImageNames are the images of a pod's init and app containers, in that
// order, named as ImageLocality matches them against node status images.
func PodImageNames(pod *v1.Pod) []string {
	var out []string
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for k := range cs {
			out = append(out, NormalizedImageName(cs[k].Image))
		}
	}
	return out
}

// AllHostIPs is the host IP that binds every address.
const AllHostIPs = "0.0.0.0"

// HostPort is one host port of a container, with kube-scheduler's defaults
// filled in.
type HostPort struct {
	IP, Protocol string
	Port         int32
}

// PodHostPorts lists the host ports of a pod's containers, as
// kube-scheduler's NodePorts plugin and NodeInfo do (init containers are
// not looked at).
func PodHostPorts(pod *v1.Pod) []HostPort {
	var out []HostPort
	for i := range pod.Spec.Containers {
		for _, cp := range pod.Spec.Containers[i].Ports {
			if cp.HostPort <= 0 {
				continue
			}
			hp := HostPort{IP: cp.HostIP, Protocol: string(cp.Protocol), Port: cp.HostPort}
			if hp.IP == "" {
				hp.IP = AllHostIPs
			}
			if hp.Protocol == "" {
				hp.Protocol = string(v1.ProtocolTCP)
			}
			out = append(out, hp)
		}
	}
	return out
}

// Conflicts reports whether two host ports cannot both be bound: same
// protocol and port, and the same address or one of them binding all.
func (h HostPort) Conflicts(o HostPort) bool {
	return h.Port == o.Port && h.Protocol == o.Protocol &&
		(h.IP == o.IP || h.IP == AllHostIPs || o.IP == AllHostIPs)
}

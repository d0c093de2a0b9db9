package api

import (
	v1 "k8s.io/api/core/v1"
)

// PodQOS is the pod's quality-of-service class as the kubelet reckons it:
// the class the API server recorded in the pod's status, else the one its
// containers' (and init containers') CPU and memory requests and limits
// give. BestEffort: no request or limit above zero; Guaranteed: every
// container limits both CPU and memory and the pod's summed requests equal
// its summed limits in both; Burstable otherwise. Pod-level resources
// (spec.resources), when set, stand for the containers', as kubelet reads
// them.
func PodQOS(pod *v1.Pod) v1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	requests, limits := map[v1.ResourceName]int64{}, map[v1.ResourceName]int64{}
	guaranteed := true
	add := func(rl v1.ResourceList, into map[v1.ResourceName]int64) (found int) {
		for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			if q, ok := rl[name]; ok && q.Sign() > 0 {
				into[name] += q.MilliValue()
				found++
			}
		}
		return found
	}
	if r := pod.Spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		add(r.Requests, requests)
		guaranteed = add(r.Limits, limits) == 2
	} else {
		for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for _, c := range cs {
				add(c.Resources.Requests, requests)
				if add(c.Resources.Limits, limits) < 2 {
					guaranteed = false
				}
			}
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return v1.PodQOSBestEffort
	}
	if guaranteed && len(requests) == len(limits) {
		for name, r := range requests {
			if limits[name] != r {
				return v1.PodQOSBurstable
			}
		}
		return v1.PodQOSGuaranteed
	}
	return v1.PodQOSBurstable
}

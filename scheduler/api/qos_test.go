package api

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func container(req, lim map[string]string) v1.Container {
	rl := func(m map[string]string) v1.ResourceList {
		out := v1.ResourceList{}
		for k, v := range m {
			out[v1.ResourceName(k)] = resource.MustParse(v)
		}
		return out
	}
	return v1.Container{Resources: v1.ResourceRequirements{Requests: rl(req), Limits: rl(lim)}}
}

func TestPodQOS(t *testing.T) {
	both := map[string]string{"cpu": "1", "memory": "1Gi"}
	cases := []struct {
		name       string
		containers []v1.Container
		status     v1.PodQOSClass
		want       v1.PodQOSClass
	}{
		{"no requests or limits", []v1.Container{container(nil, nil)}, "", v1.PodQOSBestEffort},
		{"only zero requests", []v1.Container{container(map[string]string{"cpu": "0"}, nil)}, "", v1.PodQOSBestEffort},
		{"extended resources do not count", []v1.Container{container(map[string]string{"nvidia.com/gpu": "1"}, nil)}, "", v1.PodQOSBestEffort},
		{"requests equal limits", []v1.Container{container(both, both)}, "", v1.PodQOSGuaranteed},
		{"requests below limits", []v1.Container{container(map[string]string{"cpu": "500m", "memory": "1Gi"}, both)}, "", v1.PodQOSBurstable},
		{"memory limit missing", []v1.Container{container(both, map[string]string{"cpu": "1"})}, "", v1.PodQOSBurstable},
		{"one container of two unlimited", []v1.Container{container(both, both), container(map[string]string{"cpu": "1"}, nil)}, "", v1.PodQOSBurstable},
		{"the recorded class wins", []v1.Container{container(nil, nil)}, v1.PodQOSGuaranteed, v1.PodQOSGuaranteed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: v1.PodSpec{Containers: c.containers}, Status: v1.PodStatus{QOSClass: c.status}}
			if got := PodQOS(pod); got != c.want {
				t.Fatalf("PodQOS = %s, want %s", got, c.want)
			}
		})
	}
}

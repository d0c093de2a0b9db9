package dra

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
)

// benchCluster is the device part of benchmarks.BenchmarkSessionClaims:
// nodes with one slice of eight devices each, and pods with a one-device
// claim each, all claims of one spec.
func benchCluster(numNodes, numPods int) (*Snapshot, []*v1.Node, []*v1.Pod) {
	var nodes []*v1.Node
	var slices []*resourcev1beta1.ResourceSlice
	for i := range numNodes {
		n := makeNode(fmt.Sprintf("node-%04d", i))
		nodes = append(nodes, n)
		var devices []resourcev1beta1.Device
		for d := range 8 {
			devices = append(devices, device(fmt.Sprintf("gpu-%d", d), nil))
		}
		slices = append(slices, makeSlice(n.Name, driver, devices...))
	}
	var claims []*resourcev1beta1.ResourceClaim
	var pods []*v1.Pod
	for i := range numPods {
		name := fmt.Sprintf("pod-%04d", i)
		claims = append(claims, makeClaim(name+"-gpu", className))
		pods = append(pods, podWithClaim(name, name+"-gpu"))
	}
	class := classWithSelector(deviceClass, celSelector(fmt.Sprintf("device.driver == %q", driver)))
	return NewSnapshot(claims, slices, []*resourcev1beta1.DeviceClass{class}), nodes, pods
}

// BenchmarkFilter measures Filter as the predicates plugin drives it. In
// "session", each pod is checked (Fits) on every node, then filtered and
// reserved on one (spread over the nodes), so most calls can reuse an
// earlier pod's answer. In "first-pod", one pod is checked on every node
// of a new session: nothing is stored yet, so each node costs its shape
// and either a search or a copy of a search on a node of the same shape.
func BenchmarkFilter(b *testing.B) {
	ctx := context.Background()
	snap, nodes, pods := benchCluster(1000, 200)
	b.Run("session", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sess := NewSession(snap)
			for i, pod := range pods {
				pc, err := sess.PreFilter(pod)
				if err != nil {
					b.Fatal(err)
				}
				target := (i * 37) % len(nodes)
				for _, n := range nodes {
					if err := sess.Fits(ctx, pc, n); err != nil {
						b.Fatal(err)
					}
				}
				alloc, err := sess.Filter(ctx, pc, nodes[target])
				if err != nil {
					b.Fatal(err)
				}
				if err := sess.Reserve(pod, pc, nodes[target].Name, alloc); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("first-pod", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sess := NewSession(snap)
			pc, err := sess.PreFilter(pods[0])
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range nodes {
				if err := sess.Fits(ctx, pc, n); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

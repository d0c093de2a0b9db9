// Package dra decides dynamic resource allocation (DRA with structured
// parameters) for pods the way kube-scheduler v1.32's DynamicResources plugin
// does, for the resource.k8s.io/v1beta1 objects a Kubernetes 1.32 cluster
// serves (ResourceClaims, ResourceSlices, DeviceClasses).
//
// The package does not implement device matching itself. It hands the work to
// k8s.io/dynamic-resource-allocation's structured allocator and CEL cache, the
// same code kube-scheduler runs, so selector semantics, CEL costs and the
// search order come from upstream. That library (v0.34, matching the k8s.io
// libraries of this module) works on resource.k8s.io/v1 types, so the
// v1beta1 objects are converted on the way in and the results on the way out
// (convert.go). Allocator features that were off by default in Kubernetes
// 1.32 stay off, and claims that ask for them are refused rather than
// silently allocated without them.
//
// The flow mirrors the scheduler extension points, without depending on the
// scheduler framework:
//
//	snap := NewSnapshot(claims, slices, classes)  // once per scheduling session
//	sess := NewSession(snap)
//	pc, err := sess.PreFilter(pod)                 // nil, nil: pod uses no claims
//	alloc, err := sess.Filter(ctx, pc, node)       // per node, concurrently (or Fits)
//	err = sess.Reserve(pod, pc, node.Name, alloc)  // serially; Unreserve(pod) undoes it
//	writes, err := BindClaims(pod, alloc, getClaim) // at bind time: claim updates to make
//
// Errors are *StatusError values whose Code says how the scheduler should
// treat them; see status.go.
//
// Filter runs for every pod on every candidate node, and most of those
// searches repeat one another: pods of a job ask for the same devices, and
// nodes of a kind publish the same ones. A session therefore reuses the
// allocator's answers where its inputs are the same up to names: for
// another pod on a node whose devices did not change (answers.go), and on
// another node that looks the same with the same devices in use
// (shapes.go). Fits is Filter without the Allocation, for the node filter.
//
// Where the outcome differs from kube-scheduler 1.32, and why:
//
//   - The allocator is the library's v0.34 "stable" one, not 1.32's copy.
//     A request for All devices that matches none fails here (1.32 allocated
//     it with no devices); when a device for such a request is taken, the
//     search tries other choices for earlier requests (1.32 gave up); a pool
//     with duplicate device names on the node stops the search when reached.
//   - CEL selectors compile in the library's environment, which knows the
//     CEL libraries of releases up to 1.34; a 1.32 API server would not have
//     accepted an expression that needs a newer one.
//   - Requests using adminAccess, firstAvailable, tolerations or capacity are
//     refused in PreFilter; 1.32 reported the first two as an error during
//     Filter and did not know the others.
//   - A full status.reservedFor is refused in PreFilter; 1.32 failed at
//     binding instead.
//   - A claim allocated by Reserve earlier in the session counts as
//     allocated for later pods sharing it; 1.32 made those pods wait until
//     the first pod's binding had stored the allocation.
//   - When several pools of one driver could serve a request, the choice is
//     the same every time (pools.go); in 1.32 it varies from run to run.
package dra

// Package harness runs a real control plane for Caldera's end-to-end suite:
// etcd, kube-apiserver and kwok as child processes on loopback, with
// Volcano's CRDs applied, and the caldera binary started as separate
// processes against it; a test may also start Volcano's controllers,
// Volcano's or the Kubernetes scheduler, and kube-controller-manager's PV
// binder. Tests talk to the cluster with client-go, as a user
// would.
//
// kube-apiserver runs with the flags a small cluster without
// kube-controller-manager needs (see startAPIServer): the ServiceAccount and
// TaintNodesByCondition admission plugins off, and dynamic resource
// allocation's resource.k8s.io/v1beta1 served
// (--feature-gates=DynamicResourceAllocation=true,
// --runtime-config=resource.k8s.io/v1beta1=true), so that caldera watches
// ResourceClaims, ResourceSlices and DeviceClasses in every test and the DRA
// tests can publish devices as a driver would. The other components keep
// their own feature gates at their defaults.
//
// One cluster serves a whole test binary (see Main); each test works in its
// own namespace through a *Test, which deletes what the test created when it
// ends. Every child process is tracked and stopped when the suite ends, and
// on Linux dies with the test binary even if that crashes.
//
// The suite only runs when CALDERA_E2E=1 (see Require); other environment
// variables are described on Config.
package harness

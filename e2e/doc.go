// Package e2e is Caldera's end-to-end suite: real etcd, kube-apiserver and
// kwok on loopback, `caldera run` as a separate process, and assertions on
// what a user would see through the API (bindings, pod phases, PodGroup
// status, Events, evictions, the leader election Lease). Tests of the
// Volcano flow also run Volcano's own vc-controller-manager, which turns
// batch.volcano.sh Jobs into pods and PodGroups as in a Volcano
// installation (volcano_controllers_test.go); the volume tests
// (volumes_test.go) run kube-controller-manager with only its PV binder,
// which completes the volume bindings the scheduler starts; the DRA tests
// (dra_test.go) publish ResourceSlices and DeviceClasses as a driver would
// and check the claims' allocations and reservations the scheduler writes
// (no driver or kubelet prepares them). The differential tests
// (differential_test.go) run each of a set of scenarios twice, under
// Volcano's vc-scheduler and under caldera, and fail on any difference in
// phases, conditions, bound pods or Event reasons that the scenario does not
// list with its reason.
//
// Run it with `make e2e` (which builds the components first with `make
// e2e-tools`); plain `go test ./...` skips it. Tests run one at a time, each
// in a namespace of its own with nodes of its own, and leave the cluster
// empty for the next. See package harness for the environment variables.
package e2e

// Package reservations is a custom informer (the event-handler framework's
// two-level case): it lists what resource managers outside Kubernetes hold
// on nodes from a file of JSON lines, watches the file, and delivers the
// reservations to the cache, which takes them off the nodes' allocatable.
//
//	{"node": "n1", "cpu": "4", "memory": "8Gi"}
//	{"node": "n2", "nvidia.com/gpu": "2"}
//
// Every key but "node" is a resource name with a quantity. Lines for the
// same node add up; blank lines and lines starting with # are skipped. A
// file that cannot be read or parsed is refused as a whole: at start the
// scheduler does not start, later the last good reservations stay.
package reservations

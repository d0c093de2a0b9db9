// Package resourcequota is the native "resourcequota" plugin: a job is let
// into its queue only when its PodGroup's minResources fit within every
// ResourceQuota of its namespace.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/resourcequota/resourcequota.go):
//
//   - JobEnqueueable: a job whose PodGroup states no minResources, or whose
//     namespace has no ResourceQuota, is permitted. Otherwise, for each
//     quota, the job's minResources in the resources the quota limits
//     (status.hard), added to the quota's status.used and to what jobs of
//     the namespace admitted earlier in the session asked, must stay within
//     status.hard; if any quota is exceeded the job is rejected and its
//     PodGroup gets an Unschedulable Event naming the resources, what was
//     asked, used and allowed. An admitted job's minResources count against
//     its namespace for the rest of the session.
//
// Quotas are read as the quota controller keeps their status (RBAC: list
// and watch resourcequotas); Caldera asks them in name order, so that the
// Event names the same quota each time. The plugin takes no arguments.
package resourcequota

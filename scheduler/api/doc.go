// Package api holds the scheduler's view of the cluster: resources, tasks (pods),
// jobs (PodGroups and their pods), nodes, queues and the ClusterInfo snapshot a
// session works on. The types and their accounting rules follow Volcano's
// scheduler so that decisions come out the same; nothing here talks to the API
// server or knows about Wasm.
package api

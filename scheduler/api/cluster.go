package api

// ClusterInfo is the snapshot a session opens on. Jobs and nodes are the
// session's own copies; everything they point to (pods, node objects, PodGroups,
// queues) is shared with the cache and must not be mutated.
type ClusterInfo struct {
	Jobs   map[JobID]*JobInfo
	Nodes  map[string]*NodeInfo
	Queues map[QueueID]*QueueInfo
	// NodeList holds the node names in a stable order: actions walk nodes in
	// this order so that decisions are reproducible.
	NodeList []string
	// NamespaceWeights holds per-namespace weights where any were set.
	NamespaceWeights map[string]int32
}

// NewClusterInfo returns an empty snapshot.
func NewClusterInfo() *ClusterInfo {
	return &ClusterInfo{
		Jobs:   map[JobID]*JobInfo{},
		Nodes:  map[string]*NodeInfo{},
		Queues: map[QueueID]*QueueInfo{},
	}
}

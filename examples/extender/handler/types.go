package handler

// The request and answer bodies, cut down to what this policy reads. The
// keys are those of Volcano's extender: lower-case tags on the envelopes,
// and the Go field names of Volcano's TaskInfo, NodeInfo and Resource
// inside them (a Node carries the Kubernetes Node object under "Node").
// Go's decoder skips every other key.

type resource struct {
	MilliCPU        float64
	Memory          float64
	ScalarResources map[string]float64
}

type task struct {
	Name      string
	Namespace string
	Resreq    resource
}

type node struct {
	Name string
	Node *struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	Allocatable resource
	Used        resource
}

type predicateRequest struct {
	Task task `json:"task"`
	Node node `json:"node"`
}

type predicateResponse struct {
	Status string `json:"status"`
	Code   int    `json:"code"`
}

type nodesRequest struct {
	Task  task   `json:"task"`
	Nodes []node `json:"nodes"`
}

type prioritizeResponse struct {
	NodeScore    map[string]float64 `json:"nodeScore"`
	ErrorMessage string             `json:"errorMessage"`
}

type batchPredicateResponse struct {
	NodeStatus map[string]predicateResponse `json:"nodeStatus"`
}

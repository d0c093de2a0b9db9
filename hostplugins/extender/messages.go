package extender

import "github.com/caldera-scheduler/caldera/scheduler/api"

// Request and answer bodies, call by call, with Volcano's JSON names. The
// session-open request has no tags in Volcano, so its keys are the field
// names; the others use lower-case tags.

// sessionOpenRequest carries the whole snapshot. RevocableNodes are the
// nodes labelled volcano.sh/revocable-zone, as in Volcano; Caldera's session
// has no namespace quotas, so NamespaceInfo is empty. NodeList, which Volcano
// declares but leaves null, holds the session's node order.
type sessionOpenRequest struct {
	Jobs           map[api.JobID]*wireJob
	Nodes          map[string]*wireNode
	Queues         map[api.QueueID]*wireQueue
	NamespaceInfo  map[string]any
	RevocableNodes map[string]*wireNode
	NodeList       []string
}

// sessionCloseRequest is an empty object.
type sessionCloseRequest struct{}

type predicateRequest struct {
	Task *wireTask `json:"task"`
	Node *wireNode `json:"node"`
}

// predicateResponse: an empty status passes the node; otherwise code is a
// framework status code (2 Unschedulable, 3 UnschedulableAndUnresolvable,
// ...) and 0 means Error, for extenders that set only the message.
type predicateResponse struct {
	Status string `json:"status"`
	Code   int    `json:"code"`
}

// nodesRequest serves prioritize and batchPredicate: one task, many nodes.
type nodesRequest struct {
	Task  *wireTask   `json:"task"`
	Nodes []*wireNode `json:"nodes"`
}

type prioritizeResponse struct {
	NodeScore    map[string]float64 `json:"nodeScore"`
	ErrorMessage string             `json:"errorMessage"`
}

// batchPredicateResponse holds a predicate answer per node name; a node
// left out passes, so an extender may list only the nodes it rejects.
type batchPredicateResponse struct {
	NodeStatus map[string]predicateResponse `json:"nodeStatus"`
}

// evictRequest serves preemptable and reclaimable.
type evictRequest struct {
	Evictor  *wireTask   `json:"evictor"`
	Evictees []*wireTask `json:"evictees"`
}

// evictResponse: status 0 abstains; any other status votes, and the victims
// (whole TaskInfo objects in Volcano; only their UID is read) are the vote.
type evictResponse struct {
	Status  int `json:"status"`
	Victims []struct {
		UID api.TaskID
	} `json:"victims"`
}

// jobRequest serves jobEnqueueable, jobEnqueued and jobReady.
type jobRequest struct {
	Job *wireJob `json:"job"`
}

// voteResponse: a positive status permits, a negative one rejects, 0
// abstains, as Volcano reads it.
type voteResponse struct {
	Status int `json:"status"`
}

type jobReadyResponse struct {
	Status bool `json:"status"`
}

type queueRequest struct {
	Queue *wireQueue `json:"queue"`
}

type queueOverusedResponse struct {
	Overused bool `json:"overused"`
}

// taskRequest serves allocateFunc and deallocateFunc.
type taskRequest struct {
	Task *wireTask `json:"task"`
}

type eventResponse struct {
	ErrorMessage string `json:"errorMessage"`
}

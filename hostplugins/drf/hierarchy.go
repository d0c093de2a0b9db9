package drf

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// hnode is a node of the hierarchical DRF tree: the root, a level of a
// queue's volcano.sh/hierarchy path, or a job (a leaf, without kids).
type hnode struct {
	name   string
	weight float64
	share  *jobShare
	// request is, for a job, everything its tasks ask for.
	request   *api.Resource
	saturated bool
	// kids keeps children in the order they joined, so sums run in the
	// same order every session; index finds one by name. Both are nil for
	// a job.
	kids  []*hnode
	index map[string]int
}

func newLevel(name string, weight float64) *hnode {
	return &hnode{name: name, weight: weight, share: &jobShare{allocated: api.EmptyResource()},
		request: api.EmptyResource(), index: map[string]int{}}
}

func (n *hnode) isJob() bool { return n.index == nil }

func (n *hnode) child(name string) *hnode {
	if i, ok := n.index[name]; ok {
		return n.kids[i]
	}
	return nil
}

// put adds a child, or replaces the one of the same name in place.
func (n *hnode) put(c *hnode) {
	if i, ok := n.index[c.name]; ok {
		n.kids[i] = c
		return
	}
	n.index[c.name] = len(n.kids)
	n.kids = append(n.kids, c)
}

func (n *hnode) clone() *hnode {
	out := &hnode{name: n.name, weight: n.weight, request: n.request.Clone(), saturated: n.saturated,
		share: &jobShare{allocated: n.share.allocated.Clone(), share: n.share.share}}
	if !n.isJob() {
		out.index = make(map[string]int, len(n.index))
		out.kids = make([]*hnode, len(n.kids))
		for i, k := range n.kids {
			out.kids[i] = k.clone()
			out.index[k.name] = i
		}
	}
	return out
}

// queuePath is a queue's place in the tree: its levels from the root and
// each level's weight.
type queuePath struct {
	levels  []string
	weights []float64
}

// pathOf returns the queue's path, read from its annotations the first
// time the session asks (queues do not change within a session, and the
// queue order asks twice per comparison).
func (p *Plugin) pathOf(q *api.QueueInfo) queuePath {
	var id api.QueueID
	if q != nil {
		id = q.UID
	}
	qp, ok := p.paths[id]
	if !ok {
		qp = readQueuePath(q)
		p.paths[id] = qp
	}
	return qp
}

// readQueuePath reads a queue's volcano.sh/hierarchy path ("root/eng/dev")
// and volcano.sh/hierarchy-weights ("100/50/50"), as Volcano reads them. A
// weight that is missing, not a number or below 1 counts as 1; one that is
// not a number is logged once.
func readQueuePath(q *api.QueueInfo) queuePath {
	var anns map[string]string
	if q != nil && q.Queue != nil {
		anns = q.Queue.Annotations
	}
	path := strings.Split(anns[v1beta1.KubeHierarchyAnnotationKey], "/")
	ws := strings.Split(anns[v1beta1.KubeHierarchyWeightAnnotationKey], "/")
	weights := make([]float64, len(path))
	for i := range path {
		weights[i] = 1
		if i >= len(ws) {
			continue
		}
		w, err := strconv.ParseFloat(ws[i], 64)
		if err != nil && anns[v1beta1.KubeHierarchyWeightAnnotationKey] != "" {
			logonce.Warning(Name, fmt.Sprintf("queue %s: annotation %s=%q: level %d is not a number; it weighs 1", q.Name, v1beta1.KubeHierarchyWeightAnnotationKey, anns[v1beta1.KubeHierarchyWeightAnnotationKey], i))
		}
		if w >= 1 {
			weights[i] = w
		}
	}
	return queuePath{levels: path, weights: weights}
}

// placeJob puts the job, with its share, under its queue's path, creating
// the levels it lacks (a level's weight is set when it is created).
func placeJob(root *hnode, job *api.JobInfo, js *jobShare, qp queuePath) {
	path, weights := qp.levels, qp.weights
	n := root
	for i := 1; i < len(path); i++ {
		c := n.child(path[i])
		if c == nil || c.isJob() {
			c = newLevel(path[i], weights[i])
			n.put(c)
		}
		n = c
	}
	n.put(&hnode{name: string(job.UID), weight: 1, share: js, request: job.TotalRequest.Clone()})
}

// rescale brings the tree's shares up to date from the jobs up. A job is
// saturated when it holds all it asks for in some resource, or asks for a
// resource the cluster has none left of. A level's allocation is the sum of
// its children's, each non-saturated child scaled to the smallest dominant
// share among them, so that a child cannot raise its level's share just by
// holding more than its siblings; a level is saturated when every child is.
func (p *Plugin) rescale(n *hnode, demanding map[v1.ResourceName]bool) {
	if n.isJob() {
		n.saturated = saturated(n.share.allocated, n.request, demanding)
		return
	}
	least := 1.0
	for _, c := range n.kids {
		p.rescale(c, demanding)
		if c.share.share != 0 && !c.saturated {
			least = min(least, p.shareOf(c.share.allocated))
		}
	}
	n.share.allocated = api.EmptyResource()
	sat := true
	for _, c := range n.kids {
		if !c.saturated {
			sat = false
		}
		if c.share.share == 0 {
			continue
		}
		if c.saturated {
			n.share.allocated.Add(c.share.allocated)
		} else {
			n.share.allocated.Add(c.share.allocated.Clone().Multi(least / c.share.share))
		}
	}
	p.refresh(n.share)
	n.saturated = sat
}

func saturated(allocated, request *api.Resource, demanding map[v1.ResourceName]bool) bool {
	for _, rn := range allocated.ResourceNames() {
		a, r := allocated.Get(rn), request.Get(rn)
		if a != 0 && r != 0 && a >= r {
			return true
		}
		if !demanding[rn] && r != 0 {
			return true
		}
	}
	return false
}

// update puts the job's share in the tree and rescales it; demanding
// resources are those the cluster still has some of, given allocated.
func (p *Plugin) update(root *hnode, allocated *api.Resource, job *api.JobInfo, js *jobShare) {
	demanding := map[v1.ResourceName]bool{}
	for _, rn := range p.total.ResourceNames() {
		if allocated.Get(rn) < p.total.Get(rn) {
			demanding[rn] = true
		}
	}
	placeJob(root, job, js, p.pathOf(p.ssn.Queues[job.Queue]))
	p.rescale(root, demanding)
}

// compareQueues walks both queues' paths down from the root while the
// levels tie: a saturated level goes after one that is not, else the
// smaller share over weight goes first.
func (p *Plugin) compareQueues(root *hnode, l, r *api.QueueInfo) float64 {
	lpath, rpath := p.pathOf(l).levels, p.pathOf(r).levels
	ln, rn := root, root
	depth := min(len(lpath), len(rpath))
	for i := 0; i < depth; i++ {
		if ln == nil || rn == nil {
			return 0
		}
		if !ln.saturated && rn.saturated {
			return -1
		}
		if ln.saturated && !rn.saturated {
			return 1
		}
		ls, rs := ln.share.share/ln.weight, rn.share.share/rn.weight
		if ls != rs {
			return ls - rs
		}
		if i < depth-1 {
			ln, rn = ln.child(lpath[i+1]), rn.child(rpath[i+1])
		}
	}
	return 0
}

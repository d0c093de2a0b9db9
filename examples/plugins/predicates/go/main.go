// Command predicates is the Wasm port of Caldera's native predicates plugin
// (hostplugins/predicates, Volcano's predicates): it decides whether a task
// may go on a node with kube-scheduler's rules and reason strings, filter by
// filter in Volcano's order:
//
//	NodeUnschedulable, NodeAffinity, TaintToleration  (stable: cached per
//	    pod template and node; UnschedulableAndUnresolvable)
//	resource fit   InitRequest against idle + releasing - pipelined
//	pod count      the node's allocatable "pods"
//	NodePorts      host ports in use on the node
//	InterPodAffinity, PodTopologySpread  the pods on every node (podrules.go)
//
// and PrePredicate rejects a pod whose required node affinity names nodes by
// metadata.name in a way no node can satisfy, or whose affinity terms or
// spread constraints do not parse. The arguments are the native
// plugin's, with its defaults (args.go).
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&plugin{}) }

// Reasons, as kube-scheduler and Volcano word them.
const (
	reasonUnschedulable     = "node(s) were unschedulable"
	reasonNodeAffinity      = "node(s) didn't match Pod's node affinity/selector"
	reasonPodNumberExceeded = "node(s) pod number exceeded"
	reasonNodePorts         = "node(s) didn't have free ports for the requested pod ports"
	reasonAffinityConflict  = "plugin NodeAffinity pre-predicates failed pod affinity terms conflict"
	insufficientPrefix      = "Insufficient "

	// The scheduler joins a status's reasons with ", "; a verdict carries
	// one string, so combined reasons are sent joined.
	reasonTooManyAndPorts = reasonPodNumberExceeded + ", " + reasonNodePorts
	tooManyPrefix         = reasonPodNumberExceeded + ", "
)

// plugin is the predicates policy for one session.
type plugin struct {
	args args
	// oldHostWarned: the module has logged that the scheduler does not
	// run the volume and device checks for it.
	oldHostWarned bool

	nodes []nodeState
	// entries holds each task's template and request, by task handle.
	entries []entry
	// rules is nil in a session without inter-pod affinity or spread rules.
	rules *rules

	// Kept from one session to the next so that opening one allocates
	// little: the arrays above, the fits' scalars and the template key's
	// buffers.
	fits       fitArena
	key        []byte
	sortedKeys []string
}

var (
	_ caldera.SessionOpener    = (*plugin)(nil)
	_ caldera.PrePredicater    = (*plugin)(nil)
	_ caldera.PredicateBatcher = (*plugin)(nil)
	_ caldera.EventObserver    = (*plugin)(nil)
	_ caldera.ArgumentDeclarer = (*plugin)(nil)

	_ caldera.NodeLocalPredicates        = (*plugin)(nil)
	_ caldera.SessionNodeLocalPredicates = (*plugin)(nil)
	_ caldera.NodeLocalClasser           = (*plugin)(nil)
	_ caldera.DomainRuler                = (*plugin)(nil)
	_ caldera.ShapeLocalPrePredicater    = (*plugin)(nil)
	_ caldera.ClaimChecker               = (*plugin)(nil)
)

func (*plugin) Name() string { return "predicates" }

// PredicatesNodeLocal: every filter but inter-pod affinity and topology
// spread reads the node (labels, taints, resources, pods and ports as
// events left them) and the task's own fields, nothing else, so a verdict
// holds until the node changes.
func (*plugin) PredicatesNodeLocal() bool { return true }

// PredicatesNodeLocalIn withdraws that in a session whose pods have
// inter-pod affinity or spread rules: those filters read other nodes' pods.
func (p *plugin) PredicatesNodeLocalIn(*caldera.Session) bool { return p.rules == nil }

// PrePredicatesByShape: PrePredicate reads the task's required node
// affinity and the session's arguments, nothing else, unless the session
// has pod rules: PrePredicate then also brings the task's rule states up
// to date, which must happen at every call, as in Volcano.
func (p *plugin) PrePredicatesByShape(*caldera.Session) bool { return p.rules == nil }

// OnSessionOpen reads the arguments and indexes the nodes and the templates
// of the session's tasks.
func (p *plugin) OnSessionOpen(s *caldera.Session) error {
	a, err := parseArgs(s.Arguments)
	if err != nil {
		return err
	}
	p.args = a
	if a.claimFlags && s.HostABIMinor() < 10 && !p.oldHostWarned {
		p.oldHostWarned = true
		caldera.Log(caldera.LevelError, "this scheduler speaks an ABI before 1.10 and does not run the volume and device checks "+
			"(VolumeBinding, VolumeZone, NodeVolumeLimits, DynamicResources) for the port: pods with PersistentVolumeClaims or ResourceClaims "+
			"are placed as if they had none; use the native predicates plugin, or a scheduler of ABI 1.10 or later")
	}
	v := &s.View
	// Not cleared: init sets every field and keeps the arrays.
	if cap(p.nodes) < len(v.Nodes) {
		p.nodes = make([]nodeState, len(v.Nodes))
	}
	clear(p.nodes[len(v.Nodes):cap(p.nodes)])
	p.nodes = p.nodes[:len(v.Nodes)]
	for i := range v.Nodes {
		p.nodes[i].init(&v.Nodes[i])
	}
	p.entries = reuse(p.entries, len(v.Tasks))
	p.fits.scalars = p.fits.scalars[:0]
	var templates caldera.ByKey[*template]
	for i := range v.Tasks {
		t := &v.Tasks[i]
		p.key = templateKey(p.key[:0], &p.sortedKeys, t)
		tpl, ok := templates.Get(p.key)
		if !ok {
			tpl = newTemplate(t, len(v.Nodes))
			templates.Put(p.key, tpl)
		}
		p.entries[i] = entry{tpl: tpl, fit: newFit(&t.InitRequest, &p.fits), placedOn: -1, evictedFrom: -1}
		// A session reopened after a failure sees its own placements in the
		// view; they count as placed here.
		if (t.Status == caldera.Allocated || t.Status == caldera.Pipelined) && t.Node >= 0 {
			p.entries[i].placedOn = t.Node
		}
	}
	p.rules = newRules(v, &p.args)
	return nil
}

// reuse returns s with length n and every element zero, in its own array
// when that is large enough (cleared to its end, so that a smaller session
// does not keep the previous one's objects alive).
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	clear(s[:cap(s)])
	return s[:n]
}

// PrePredicate rejects a pod whose required node affinity can match no node.
func (p *plugin) PrePredicate(_ *caldera.Session, task *caldera.Task) caldera.Verdict {
	if p.args.nodeAffinity && p.entries[task.Handle].tpl.conflict {
		return caldera.Verdict{Code: caldera.UnschedulableAndUnresolvable, Reason: reasonAffinityConflict}
	}
	if p.rules != nil {
		rs := p.rules.of(task)
		rs.catchUp()
		if r := rs.preFilter(); r != "" {
			return caldera.Verdict{Code: caldera.UnschedulableAndUnresolvable, Reason: r}
		}
	}
	return caldera.Pass
}

// PredicateBatch runs the filters on every node. Without pod rules it
// allocates nothing: the reasons are constants or prepared at session open.
func (p *plugin) PredicateBatch(s *caldera.Session, task *caldera.Task, nodes []*caldera.Node, verdicts []caldera.Verdict) {
	e := &p.entries[task.Handle]
	tpl := e.tpl
	var rs *ruleStates
	if p.rules != nil {
		rs = p.rules.of(task)
		if s.InVictimTrial() {
			rs.catchUp()
		}
		if rs.passesAll() {
			rs = nil
		}
	}
	for i, n := range nodes {
		ns := &p.nodes[n.Handle]
		v := tpl.verdict(n, &p.args)
		tooMany := ns.pods >= ns.maxPods
		if v != pass {
			verdicts[i] = caldera.Verdict{Code: caldera.UnschedulableAndUnresolvable, Reason: ns.reason(v, tooMany)}
			continue
		}
		if r := e.fit.shortfall(n); r != "" {
			// Volcano's preempt and reclaim rule a node out when a filter
			// after the resource check is unresolvable there.
			code := caldera.Unschedulable
			if rs != nil {
				if _, u := rs.filter(n, ""); u {
					code = caldera.UnschedulableAndUnresolvable
				}
			}
			if nc := s.NodeClaims(i); nc != nil && nc.RuledOut {
				code = caldera.UnschedulableAndUnresolvable
			}
			verdicts[i] = caldera.Verdict{Code: code, Reason: r}
			continue
		}
		portsTaken := p.args.nodePorts && len(tpl.ports) > 0 && ns.portsTaken(tpl.ports)
		var reason string
		switch {
		case tooMany && portsTaken:
			reason = reasonTooManyAndPorts
		case tooMany:
			reason = reasonPodNumberExceeded
		case portsTaken:
			reason = reasonNodePorts
		}
		// The filters that depend on other pods and the scheduler's volume
		// and device checks come after NodePorts, in Volcano's order
		// (claims.go); their reasons add up, and an unresolvable one, or
		// a check that ends, ends the node's check.
		nc := s.NodeClaims(i)
		code, ended := caldera.Unschedulable, false
		if reason, code, ended = claimChecks(nc, caldera.StageClaims, caldera.StageClaims, reason); ended {
			verdicts[i] = caldera.Verdict{Code: code, Reason: reason}
			continue
		}
		if rs != nil {
			var unresolvable bool
			if reason, unresolvable = rs.filterAffinity(n, reason); unresolvable {
				verdicts[i] = caldera.Verdict{Code: caldera.UnschedulableAndUnresolvable, Reason: reason}
				continue
			}
		}
		if reason, code, ended = claimChecks(nc, caldera.StageLimits, caldera.StageZone, reason); ended {
			verdicts[i] = caldera.Verdict{Code: code, Reason: reason}
			continue
		}
		if rs != nil {
			var unresolvable bool
			if reason, unresolvable = rs.filterSpread(n, reason); unresolvable {
				verdicts[i] = caldera.Verdict{Code: caldera.UnschedulableAndUnresolvable, Reason: reason}
				continue
			}
		}
		if reason, code, ended = claimChecks(nc, caldera.StageBinding, caldera.StageDevices, reason); ended {
			verdicts[i] = caldera.Verdict{Code: code, Reason: reason}
			continue
		}
		if reason != "" {
			verdicts[i] = caldera.Verdict{Code: caldera.Unschedulable, Reason: reason}
		}
	}
}

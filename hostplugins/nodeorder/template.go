package nodeorder

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// podEntry is what the strategies keep of one pending pod.
type podEntry struct {
	req    podRequests
	tpl    *template
	scores *resourceScores
}

// template holds the parts of a pod that the affinity and taint scores read,
// shared by pods whose preferred node affinity and tolerations are equal, and
// those scores per node, computed once.
type template struct {
	// preferred is nil when the pod has no preferred node affinity, which
	// makes kube-scheduler skip the affinity score.
	preferred *nodeaffinity.PreferredSchedulingTerms
	// tolerations are those that can tolerate a PreferNoSchedule taint.
	tolerations []v1.Toleration

	once     sync.Once
	affinity []atomic.Int64 // score+1; 0 means not yet computed
	taints   []atomic.Int64
}

// entryOf returns a pod's requests and template, building them on first use.
func (p *Plugin) entryOf(pod *v1.Pod) (*podEntry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.pods[pod]; e != nil {
		return e, nil
	}
	key := string(templateKey(nil, pod))
	tpl := p.templates[key]
	if tpl == nil {
		var err error
		if tpl, err = newTemplate(pod); err != nil {
			return nil, err
		}
		p.templates[key] = tpl
	}
	e := &podEntry{req: p.requests.of(pod), tpl: tpl}
	if e.scores = p.scoreTables[e.req]; e.scores == nil {
		e.scores = newResourceScores(p.nodeCount)
		p.scoreTables[e.req] = e.scores
	}
	p.pods[pod] = e
	return e, nil
}

func newTemplate(pod *v1.Pod) (*template, error) {
	t := &template{}
	if aff := pod.Spec.Affinity; aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		terms, err := nodeaffinity.NewPreferredSchedulingTerms(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
		if err != nil {
			return nil, err
		}
		t.preferred = terms
	}
	for _, tol := range pod.Spec.Tolerations {
		if tol.Effect == "" || tol.Effect == v1.TaintEffectPreferNoSchedule {
			t.tolerations = append(t.tolerations, tol)
		}
	}
	return t, nil
}

// templateKey is equal for two pods exactly when their preferred node
// affinity and tolerations are equal.
func templateKey(buf []byte, pod *v1.Pod) []byte {
	if aff := pod.Spec.Affinity; aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		buf = append(buf, 'a')
		for i := range aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			b, _ := aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].Marshal()
			buf = appendBytes(buf, b)
		}
	}
	buf = append(buf, '|')
	for i := range pod.Spec.Tolerations {
		b, _ := pod.Spec.Tolerations[i].Marshal()
		buf = appendBytes(buf, b)
	}
	return buf
}

func appendBytes(buf, b []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(b)))
	return append(buf, b...)
}

func (t *template) init(nodeCount int) {
	t.once.Do(func() {
		t.affinity = make([]atomic.Int64, nodeCount)
		t.taints = make([]atomic.Int64, nodeCount)
	})
}

// lookup returns a cached per-node score, or computes and stores it; nodes
// outside the session are not cached.
func lookup(slots []atomic.Int64, ns *nodeState, compute func(*nodeState) int64) int64 {
	if ns.index < 0 || ns.index >= len(slots) {
		return compute(ns)
	}
	slot := &slots[ns.index]
	if v := slot.Load(); v != 0 {
		return v - 1
	}
	v := compute(ns)
	slot.Store(v + 1)
	return v
}

package podrules

import (
	"encoding/binary"
	"sort"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// TemplateKey appends to buf a byte string equal for two pods exactly when
// every field these rules read of the pod is equal: namespace, labels, pod
// affinity and anti-affinity, spread constraints, node selector, required
// node affinity and tolerations.
func TemplateKey(buf []byte, pod *v1.Pod) []byte {
	buf = appendString(buf, pod.Namespace)
	buf = appendMap(buf, pod.Labels)
	buf = appendMap(buf, pod.Spec.NodeSelector)
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			b, _ := a.PodAffinity.Marshal()
			buf = appendString(append(buf, 'a'), string(b))
		}
		if a.PodAntiAffinity != nil {
			b, _ := a.PodAntiAffinity.Marshal()
			buf = appendString(append(buf, 'n'), string(b))
		}
		if a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			b, _ := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.Marshal()
			buf = appendString(append(buf, 'r'), string(b))
		}
	}
	buf = append(buf, '|')
	for i := range pod.Spec.TopologySpreadConstraints {
		b, _ := pod.Spec.TopologySpreadConstraints[i].Marshal()
		buf = appendString(buf, string(b))
	}
	buf = append(buf, '|')
	for i := range pod.Spec.Tolerations {
		b, _ := pod.Spec.Tolerations[i].Marshal()
		buf = appendString(buf, string(b))
	}
	return buf
}

func appendMap(buf []byte, m map[string]string) []byte {
	if m == nil {
		return append(buf, 0)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf = binary.AppendUvarint(buf, uint64(len(keys)+1))
	for _, k := range keys {
		buf = appendString(buf, k)
		buf = appendString(buf, m[k])
	}
	return buf
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// Templates shares one set of states among the pods of a rule template.
// The actions ask about one task on many nodes in a row, so the last pod's
// states are kept apart and found without the lock.
type Templates[S any] struct {
	build func(*v1.Pod) S
	// extra, when set, adds to a pod's key what build reads beside the pod.
	extra func(*v1.Pod) string

	mu    sync.Mutex
	byKey map[string]S
	byPod map[*v1.Pod]S
	last  atomic.Pointer[podStates[S]]
}

type podStates[S any] struct {
	pod    *v1.Pod
	states S
}

// NewTemplates returns an empty set; build makes a template's states from
// its first pod.
func NewTemplates[S any](build func(*v1.Pod) S) *Templates[S] {
	return &Templates[S]{build: build, byKey: map[string]S{}, byPod: map[*v1.Pod]S{}}
}

// NewTemplatesKeyed is NewTemplates for a build that also reads something
// of the session about the pod (its default spread selector, say): extra
// returns that, and pods share states only where it is equal too.
func NewTemplatesKeyed[S any](build func(*v1.Pod) S, extra func(*v1.Pod) string) *Templates[S] {
	t := NewTemplates(build)
	t.extra = extra
	return t
}

// Of returns a pod's states, building its template's on first use.
func (t *Templates[S]) Of(pod *v1.Pod) S {
	if l := t.last.Load(); l != nil && l.pod == pod {
		return l.states
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.byPod[pod]
	if !ok {
		buf := TemplateKey(nil, pod)
		if t.extra != nil {
			buf = appendString(append(buf, '|'), t.extra(pod))
		}
		key := string(buf)
		if s, ok = t.byKey[key]; !ok {
			s = t.build(pod)
			t.byKey[key] = s
		}
		t.byPod[pod] = s
	}
	t.last.Store(&podStates[S]{pod: pod, states: s})
	return s
}

package nodeorder

import (
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// requestMemo remembers pods' scoring requests from one session to the
// next, by pod object. The cache replaces a pod that changes with a new
// object, so an object's requests never change; computing them
// (component-helpers' PodRequests) was a third of what a session
// allocated. A pod no session asked about for a whole session is
// forgotten.
type requestMemo struct {
	mu        sync.Mutex
	now, last map[*v1.Pod]podRequests
}

// of returns the pod's requests.
func (m *requestMemo) of(pod *v1.Pod) podRequests {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.now[pod]; ok {
		return r
	}
	r, ok := m.last[pod]
	if !ok {
		r = requestsOf(pod)
	}
	if m.now == nil {
		m.now = map[*v1.Pod]podRequests{}
	}
	m.now[pod] = r
	return r
}

// turn starts a session: what the session before the last did not ask
// about is dropped.
func (m *requestMemo) turn() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last, m.now = m.now, make(map[*v1.Pod]podRequests, len(m.now))
}

// NewFactory returns a factory whose plugins, one per session, share what
// they remember of pods between sessions; the plugin registry uses it.
func NewFactory() framework.Factory {
	m := &requestMemo{}
	return func(args framework.Arguments) (framework.Plugin, error) {
		w, err := ParseWeights(args)
		if err != nil {
			return nil, err
		}
		return &Plugin{w: w, requests: m}, nil
	}
}

package cache

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// NodeSelector is vc-scheduler's --node-selector: label pairs, "name:value",
// of the nodes the scheduler takes. A node is taken when any one of its
// labels is among them (Volcano's nodeCanAddCache); an empty selector takes
// every node. Nodes not taken are unknown to the cache: no session sees
// them, and pods bound there by others sit on a placeholder that no
// session places onto.
type NodeSelector map[string]struct{}

// ParseNodeSelector reads the flag's entries as Volcano does (spaces around
// the name and the value trimmed, empty entries skipped), except that an
// entry without a name, a colon or a value is an error: Volcano skips it
// silently, which leaves the scheduler taking nodes it was told not to.
func ParseNodeSelector(entries []string) (NodeSelector, error) {
	s := NodeSelector{}
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		name, value, ok := strings.Cut(e, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || value == "" {
			return nil, fmt.Errorf("node selector %q: expected label:value, e.g. volcano.sh/role:train", e)
		}
		s[name+":"+value] = struct{}{}
	}
	return s, nil
}

// Matches reports whether the scheduler takes node.
func (s NodeSelector) Matches(node *v1.Node) bool {
	if len(s) == 0 {
		return true
	}
	for name, value := range node.Labels {
		if _, ok := s[name+":"+value]; ok {
			return true
		}
	}
	return false
}

// filter passes h the events of the nodes the selector takes. A node
// relabeled into the selection arrives as added, one relabeled out of it
// as deleted (Volcano leaves such a node in its cache as it last took it,
// still scheduling onto it; here it leaves, as the flag asks).
func (s NodeSelector) filter(h cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if n, ok := o.(*v1.Node); ok && s.Matches(n) {
				h.OnAdd(o, false)
			}
		},
		UpdateFunc: func(o, n any) {
			oldNode, ok1 := o.(*v1.Node)
			newNode, ok2 := n.(*v1.Node)
			if !ok1 || !ok2 {
				return
			}
			switch was, is := s.Matches(oldNode), s.Matches(newNode); {
			case was && is:
				h.OnUpdate(o, n)
			case is:
				h.OnAdd(n, false)
			case was:
				h.OnDelete(n)
			}
		},
		DeleteFunc: func(o any) {
			if n, ok := unwrap(o).(*v1.Node); ok && s.Matches(n) {
				h.OnDelete(o)
			}
		},
	}
}

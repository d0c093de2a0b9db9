package cache

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// dispatcher turns one informer's notifications into events of kind for
// the event handler. A delete whose final state the informer missed
// (DeletedFinalStateUnknown) carries the last state it knew.
func (c *Cache) dispatcher(kind string) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { c.dispatch(Event{Type: Added, Kind: kind, New: o}) },
		UpdateFunc: func(o, n any) { c.dispatch(Event{Type: Updated, Kind: kind, Old: o, New: n}) },
		DeleteFunc: func(o any) { c.dispatch(Event{Type: Deleted, Kind: kind, Old: unwrap(o)}) },
	}
}

// dispatch hands the event to the handler, then notes the pod's version:
// in that order, a pod the handler still holds is already in its queue
// when DroppedPods compares versions, and DroppedPods waits for the queue.
func (c *Cache) dispatch(ev Event) {
	c.handler.Handle(ev)
	if ev.Kind == KindPod {
		c.notePodSeen(ev)
	}
}

// notePodSeen remembers which version of a pod the informer delivered
// last, so that DroppedPods can tell what the handler kept out.
func (c *Cache) notePodSeen(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Type == Deleted {
		if p := asPod(ev.Old); p != nil {
			delete(c.podsSeen, p.UID)
		}
		return
	}
	if p := asPod(ev.New); p != nil {
		c.podsSeen[p.UID] = p.ResourceVersion
	}
}

// record is the default event handler: it records the event in the cache.
func (c *Cache) record(ev Event) {
	obj, deleted := ev.New, ev.Type == Deleted
	if deleted {
		obj = ev.Old
	}
	switch ev.Kind {
	case KindPod:
		c.recordPod(ev)
	case KindNode:
		if deleted {
			c.onNodeDelete(asNode(obj))
		} else {
			c.onNode(asNode(obj))
		}
	case KindPodGroup:
		c.onPodGroup(asPodGroup(obj), deleted)
	case KindQueue:
		c.onQueue(asQueue(obj), deleted)
	case KindPriorityClass:
		c.onPriorityClass(asPriorityClass(obj), deleted)
	case KindExternalReservation:
		c.recordReservation(obj, deleted)
	default:
		klog.V(4).InfoS("Ignoring an event of a kind the default handler does not know", "kind", ev.Kind, "type", ev.Type)
	}
}

func (c *Cache) recordPod(ev Event) {
	switch ev.Type {
	case Added:
		c.onPod(nil, asPod(ev.New))
	case Updated:
		c.onPod(asPod(ev.Old), asPod(ev.New))
	case Deleted:
		c.onPodDelete(asPod(ev.Old))
	}
}

// DroppedPods returns the pods whose latest version the event handler kept
// out of the cache; nil while the handler still holds events, whose pods
// are neither recorded nor dropped yet.
func (c *Cache) DroppedPods() map[api.TaskID]bool {
	if s, ok := c.handler.(QueueingEventHandler); ok && !s.HasSynced() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[api.TaskID]bool{}
	for uid, rv := range c.podsSeen {
		if got, ok := c.podsRecorded[uid]; !ok || got != rv {
			out[api.TaskID(uid)] = true
		}
	}
	return out
}

// recordReservation takes an external reservation off its node's
// allocatable, or gives it back.
func (c *Cache) recordReservation(obj any, deleted bool) {
	r, ok := obj.(*api.ExternalReservation)
	if !ok {
		klog.InfoS("Ignoring an ExternalReservation event that carries another type", "type", fmt.Sprintf("%T", obj))
		return
	}
	key := r.Namespace + "/" + r.Name
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.reservations[key]; ok {
		delete(c.reservationsOn[old.Node], key)
		c.refreshReserved(old.Node)
		delete(c.reservations, key)
	}
	if !deleted {
		c.reservations[key] = r
		if c.reservationsOn[r.Node] == nil {
			c.reservationsOn[r.Node] = map[string]*api.ExternalReservation{}
		}
		c.reservationsOn[r.Node][key] = r
		c.refreshReserved(r.Node)
	}
}

// refreshReserved sets a node's NodeInfo.External to its reservations.
// Callers hold mu.
func (c *Cache) refreshReserved(node string) {
	if len(c.reservationsOn[node]) == 0 {
		delete(c.reservationsOn, node)
	}
	if n, ok := c.nodes[node]; ok {
		n.SetExternal(c.reservedSum(node))
	}
}

// reservedSum adds up the reservations on a node; nil when there are none.
// Callers hold mu.
func (c *Cache) reservedSum(node string) *api.Resource {
	var sum *api.Resource
	for _, r := range c.reservationsOn[node] {
		if sum == nil {
			sum = api.EmptyResource()
		}
		sum.Add(api.NewResource(r.Resources))
	}
	return sum
}

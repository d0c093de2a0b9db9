package cache

import "fmt"

// EventType is what happened to an object.
type EventType int

const (
	Added EventType = iota + 1
	Updated
	Deleted
)

func (t EventType) String() string {
	switch t {
	case Added:
		return "add"
	case Updated:
		return "update"
	case Deleted:
		return "delete"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Kinds of the objects the cache watches. Custom informers add kinds of
// their own; the default handler records KindExternalReservation and
// ignores any other kind it does not know.
const (
	KindPod                 = "Pod"
	KindNode                = "Node"
	KindPodGroup            = "PodGroup"
	KindQueue               = "Queue"
	KindPriorityClass       = "PriorityClass"
	KindExternalReservation = "ExternalReservation"
)

// Event is one change to one object, as an informer delivered it. Old is
// nil for an add and New is nil for a delete. The objects belong to the
// informer's store: a handler that changes one must change a copy.
type Event struct {
	Type EventType
	Kind string
	Old  any
	New  any
}

// EventHandler is how the cache reacts to object events (the seed's
// event-handler framework). The default handler records each event in the
// cache; a replacement usually wraps it (HandlerContext.Default), passing
// events on unchanged, changed, or not at all (DropEvent). Handle is
// called from the informers' goroutines: concurrently for different
// kinds, one at a time for one kind. A QueueingEventHandler may call the
// handler it wraps from several goroutines at once, in order for each
// object but concurrently for different objects of one kind (the Wasm
// handler's shards): a wrapped handler must be safe for that.
type EventHandler interface {
	Handle(Event)
}

// QueueingEventHandler is an EventHandler that handles events later than it
// receives them (a Wasm handler sends them in batches). The cache counts it
// as synced, and starts no session, until HasSynced reports that every
// event received so far has been handled. A wrapper around such a handler
// must implement it too.
type QueueingEventHandler interface {
	EventHandler
	HasSynced() bool
}

// EventHandlerFunc is an EventHandler as a function.
type EventHandlerFunc func(Event)

// Handle calls f.
func (f EventHandlerFunc) Handle(ev Event) { f(ev) }

// DropEvent keeps an object version out of the cache: an add is not
// recorded, an update removes what the cache had of the object, and a
// delete goes through (a dropped delete would leave a ghost behind).
func DropEvent(next EventHandler, ev Event) {
	switch ev.Type {
	case Updated:
		next.Handle(Event{Type: Deleted, Kind: ev.Kind, Old: ev.Old})
	case Deleted:
		next.Handle(ev)
	}
}

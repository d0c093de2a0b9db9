// Package pqueue is the priority queue every action orders its queues, jobs,
// tasks and victims with: a binary heap over a "goes before" function, popped
// best first, with the same sift algorithm as container/heap so that ties
// resolve the way Volcano's queue resolves them.
package pqueue

import "container/heap"

// Queue pops the item that goes before all others according to less.
type Queue[T any] struct {
	h items[T]
}

// New returns an empty queue ordered by less.
func New[T any](less func(l, r T) bool) *Queue[T] {
	return &Queue[T]{h: items[T]{less: less}}
}

// Push adds an item.
func (q *Queue[T]) Push(it T) { heap.Push(&q.h, it) }

// Pop removes and returns the first item; the zero value when empty.
func (q *Queue[T]) Pop() T {
	var zero T
	if len(q.h.list) == 0 {
		return zero
	}
	return heap.Pop(&q.h).(T)
}

// Len is the number of items.
func (q *Queue[T]) Len() int { return len(q.h.list) }

// Empty reports whether the queue has no item.
func (q *Queue[T]) Empty() bool { return len(q.h.list) == 0 }

type items[T any] struct {
	list []T
	less func(l, r T) bool
}

func (h *items[T]) Len() int           { return len(h.list) }
func (h *items[T]) Less(i, j int) bool { return h.less(h.list[i], h.list[j]) }
func (h *items[T]) Swap(i, j int)      { h.list[i], h.list[j] = h.list[j], h.list[i] }
func (h *items[T]) Push(x any)         { h.list = append(h.list, x.(T)) }
func (h *items[T]) Pop() any {
	n := len(h.list) - 1
	it := h.list[n]
	var zero T
	h.list[n] = zero
	h.list = h.list[:n]
	return it
}

// Clone returns a queue with the same items and order, independent of q.
func (q *Queue[T]) Clone() *Queue[T] {
	return &Queue[T]{h: items[T]{list: append([]T(nil), q.h.list...), less: q.h.less}}
}

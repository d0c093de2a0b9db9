package reservations

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// historyLen is how many changes a watch can resume across; a reflector
// further behind lists again.
const historyLen = 64

// source holds the reservations last read from the file and serves them
// as a list and a watch, the way an API server serves a resource, so that
// client-go's reflector and shared informer can run on it unchanged.
type source struct {
	name, path string

	mu      sync.Mutex
	items   map[string]*api.ExternalReservation // by node
	rv      uint64
	history []change
	watches map[*fileWatch]bool
}

// change is what one re-read changed, at resource version rv.
type change struct {
	rv     uint64
	events []watch.Event
}

func newSource(name, path string) *source {
	return &source{name: name, path: path, items: map[string]*api.ExternalReservation{}, watches: map[*fileWatch]bool{}}
}

// read re-reads the file and, if the reservations changed, sends the
// changes to the watches. A file that cannot be read or parsed changes
// nothing.
func (s *source) read() (changed bool, err error) {
	data, err := regularfile.Read(s.path, regularfile.MaxReservations)
	if err != nil {
		return false, err
	}
	nodes, err := parse(data)
	if err != nil {
		return false, fmt.Errorf("%s: %w", s.path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.rv + 1
	var events []watch.Event
	for node, list := range nodes {
		old, ok := s.items[node]
		if ok && apiequality.Semantic.DeepEqual(old.Resources, list) {
			continue
		}
		r := s.object(node, list, next)
		s.items[node] = r
		typ := watch.Added
		if ok {
			typ = watch.Modified
		}
		events = append(events, watch.Event{Type: typ, Object: r})
	}
	for node, old := range s.items {
		if _, ok := nodes[node]; !ok {
			delete(s.items, node)
			gone := old.DeepCopyObject().(*api.ExternalReservation)
			gone.ResourceVersion = strconv.FormatUint(next, 10)
			events = append(events, watch.Event{Type: watch.Deleted, Object: gone})
		}
	}
	if len(events) == 0 {
		return false, nil
	}
	s.rv = next
	s.history = append(s.history, change{rv: next, events: events})
	if len(s.history) > historyLen {
		s.history = s.history[len(s.history)-historyLen:]
	}
	for w := range s.watches {
		w.send(events)
	}
	return true, nil
}

// object is a node's reservation. The source's name is its namespace, so
// that two sources never share a key in the cache.
func (s *source) object(node string, list v1.ResourceList, rv uint64) *api.ExternalReservation {
	return &api.ExternalReservation{
		TypeMeta: metav1.TypeMeta{Kind: "ExternalReservation", APIVersion: "caldera.sh/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.name, Name: node, ResourceVersion: strconv.FormatUint(rv, 10),
		},
		Node:      node,
		Resources: list,
	}
}

// list is the ListFunc of the informer.
func (s *source) list(context.Context, metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &api.ExternalReservationList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatUint(s.rv, 10)}}
	for _, r := range s.items {
		out.Items = append(out.Items, *r.DeepCopyObject().(*api.ExternalReservation))
	}
	return out, nil
}

// watch is the WatchFunc of the informer: the changes after
// opts.ResourceVersion, then every later one.
func (s *source) watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil {
		return nil, apierrors.NewBadRequest("external reservations are listed, not streamed")
	}
	from, err := strconv.ParseUint(opts.ResourceVersion, 10, 64)
	if err != nil && opts.ResourceVersion != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("resourceVersion %q is not a number", opts.ResourceVersion))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if from > s.rv {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("resourceVersion %d is in the future", from))
	}
	// History holds consecutive versions up to s.rv.
	if from < s.rv && (len(s.history) == 0 || s.history[0].rv > from+1) {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("resourceVersion %d is too old", from))
	}
	w := newFileWatch() // only now: its goroutine ends with Stop, which a refused watch never gets
	for _, c := range s.history {
		if c.rv > from {
			w.send(c.events)
		}
	}
	s.watches[w] = true
	go func() {
		<-w.done
		s.mu.Lock()
		delete(s.watches, w)
		s.mu.Unlock()
	}()
	return w, nil
}

// fileWatch is one watch: a queue that never blocks the source, drained
// into the result channel by its own goroutine.
type fileWatch struct {
	out  chan watch.Event
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	pending []watch.Event
	wake    chan struct{}
}

func newFileWatch() *fileWatch {
	w := &fileWatch{out: make(chan watch.Event), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go w.pump()
	return w
}

func (w *fileWatch) send(events []watch.Event) {
	w.mu.Lock()
	w.pending = append(w.pending, events...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *fileWatch) pump() {
	defer close(w.out)
	for {
		w.mu.Lock()
		batch := w.pending
		w.pending = nil
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case w.out <- ev:
			case <-w.done:
				return
			}
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
	}
}

func (w *fileWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *fileWatch) Stop() { w.once.Do(func() { close(w.done) }) }

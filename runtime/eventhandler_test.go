package runtime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// recordedEvents is a cache.EventHandler that keeps what reaches it.
type recordedEvents struct {
	mu    sync.Mutex
	names []string
}

func (r *recordedEvents) Handle(ev cache.Event) {
	obj := ev.New
	if obj == nil {
		obj = ev.Old
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, ev.Type.String()+" "+obj.(metav1.Object).GetName())
}

// One event the module traps on fails alone: the batch is asked again in
// halves, the other events get their verdicts (here: pass), and only the
// poisoned one meets the failure policy (Fail: an add kept out of the
// cache, a delete passed on).
func TestPoisonedEventFailsAlone(t *testing.T) {
	p, err := Load(context.Background(), buildGuest(t, "hostile", ""), Options{Name: "hostile-events", Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	next := &recordedEvents{}
	h, err := NewEventHandler(p, "hostile-events", HandlerConfig{FailurePolicy: FailureFail, Arguments: map[string]any{
		"hostile.hook": "cache_event", "hostile.mode": "trap", "hostile.object": "poison",
	}}, next)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
	}
	batch := []cache.Event{
		{Type: cache.Added, Kind: "Pod", New: pod("a")},
		{Type: cache.Added, Kind: "Pod", New: pod("b")},
		{Type: cache.Added, Kind: "Pod", New: pod("poison")},
		{Type: cache.Added, Kind: "Pod", New: pod("c")},
		{Type: cache.Added, Kind: "Node", New: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}},
		{Type: cache.Deleted, Kind: "Pod", Old: pod("poison")},
	}
	failed := testutil.ToFloat64(metrics.EventHandlerFailures.WithLabelValues("hostile-events", "Pod", "drop"))
	h.shards[0].handleBatch(batch)
	want := []string{"add a", "add b", "add c", "add n1", "delete poison"}
	if got := next.names; !slices.Equal(got, want) {
		t.Errorf("events handed on %q, want %q", got, want)
	}
	if n := testutil.ToFloat64(metrics.EventHandlerFailures.WithLabelValues("hostile-events", "Pod", "drop")) - failed; n != 2 {
		t.Errorf("%v pod events failed, want 2 (the poisoned pod's add and delete)", n)
	}
}

// A module that fails every call is not asked twice per event: after
// breakerThreshold failures in a row its calls pause, and the events meet
// the failure policy (Ignore: recorded as they came) without a call.
func TestFailingHandlerPausesItsCalls(t *testing.T) {
	p, err := Load(context.Background(), buildGuest(t, "hostile", ""), Options{Name: "failing-events", Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	next := &recordedEvents{}
	h, err := NewEventHandler(p, "failing-events", HandlerConfig{FailurePolicy: FailureIgnore, Arguments: map[string]any{
		"hostile.hook": "cache_event", "hostile.mode": "trap",
	}}, next)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(0, 0) // stands still: the pause outlasts the test
	h.breaker.now = func() time.Time { return clock }
	var batch []cache.Event
	for i := range 4000 {
		name := fmt.Sprintf("p%d", i)
		batch = append(batch, cache.Event{Type: cache.Added, Kind: "Pod", New: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)}}})
	}
	calls := func() float64 {
		return testutil.ToFloat64(metrics.PluginCalls.WithLabelValues("failing-events", "cache_event"))
	}
	before := calls()
	for i := 0; i < len(batch); i += maxEventBatch {
		h.shards[0].handleBatch(batch[i:min(i+maxEventBatch, len(batch))])
	}
	if n := calls() - before; n != breakerThreshold {
		t.Errorf("%v calls for 4,000 events of a module that fails every call, want %d (then a pause)", n, breakerThreshold)
	}
	if len(next.names) != len(batch) {
		t.Errorf("%d events recorded, want all %d under failurePolicy Ignore", len(next.names), len(batch))
	}
}

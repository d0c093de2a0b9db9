package benchmarks

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/caldera-scheduler/caldera/scheduler"
)

// guestAllocs counts, with a wazero function listener, the calls a module
// makes to TinyGo's allocator, by module and by the hook being served.
type guestAllocs struct {
	mu      sync.Mutex
	serving map[string]uint64         // instance → hook ID of the call under way, or outsideCall
	allocs  map[string]map[uint64]int // module → hook ID → allocations
}

// outsideCall stands for the exports other than caldera_call: the host
// asks caldera_buffer for room before each call, which can allocate.
const outsideCall = ^uint64(0)

func newGuestAllocs() *guestAllocs {
	return &guestAllocs{serving: map[string]uint64{}, allocs: map[string]map[uint64]int{}}
}

func (g *guestAllocs) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	switch {
	case slices.Contains(def.ExportNames(), "caldera_call"):
		return allocListener{g, true}
	case def.Name() == "runtime.alloc":
		return allocListener{g, false}
	}
	return nil
}

func (g *guestAllocs) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.allocs)
}

type allocListener struct {
	g    *guestAllocs
	call bool // caldera_call, else runtime.alloc
}

func (l allocListener) Before(_ context.Context, m api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	g := l.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if l.call {
		g.serving[m.Name()] = params[0]
		return
	}
	hook, ok := g.serving[m.Name()]
	if !ok {
		hook = outsideCall
	}
	// Instances are named "<plugin>#<n>"; count them together.
	module, _, _ := strings.Cut(m.Name(), "#")
	if g.allocs[module] == nil {
		g.allocs[module] = map[uint64]int{}
	}
	g.allocs[module][hook]++
}

func (l allocListener) After(_ context.Context, m api.Module, _ api.FunctionDefinition, _ []uint64) {
	l.ended(m)
}

func (l allocListener) Abort(_ context.Context, m api.Module, _ api.FunctionDefinition, _ error) {
	l.ended(m)
}

// ended marks the end of a caldera_call.
func (l allocListener) ended(m api.Module) {
	if !l.call {
		return
	}
	l.g.mu.Lock()
	defer l.g.mu.Unlock()
	delete(l.g.serving, m.Name())
}

// TestTinyGoSessionsAllocateLittle runs sessions with every default plugin
// as its TinyGo port and counts what each module allocates once the first
// session (the whole view) is done. A TinyGo module collects when its heap
// is full, and a collection marks the whole view; at 5,000 nodes one cost
// a port about a quarter of a second (docs/performance.md, "Every default
// plugin as a Wasm port"), so
// a session's allocations must not grow with its tasks or nodes.
func TestTinyGoSessionsAllocateLittle(t *testing.T) {
	// 2,000 tasks and 1,000 nodes: a budget far below one allocation per
	// object, above what the SDK and ports allocate per session now (9 to
	// 48 a module, most of it in session_open).
	sessionsAllocateLittle(t, Workload{Nodes: 1000, Gangs: 200, GangSize: 10}, func(string) int { return 64 })
}

// With pod rules the predicates port builds an Index and rule states per
// session and counts each placement: a few allocations per task (7 now,
// 14,800 at 2,000 tasks). Before its lookups went by topology domain
// number it allocated about 900 per task, most of them map keys TinyGo
// boxed at every lookup in predicate_batch, and ran out of its 64 MiB at
// 5,000 nodes.
func TestTinyGoPodRulesSessionsAllocateLittle(t *testing.T) {
	w := Workload{Nodes: 1000, Gangs: 200, GangSize: 10, PodRules: true}
	sessionsAllocateLittle(t, w, func(module string) int {
		if strings.HasPrefix(module, "predicates.") {
			return 10 * w.Gangs * w.GangSize
		}
		return 64
	})
}

func sessionsAllocateLittle(t *testing.T, w Workload, budget func(module string) int) {
	counts := newGuestAllocs()
	ctx := experimental.WithFunctionListenerFactory(context.Background(), counts)
	plugins, acts, cfg, ported := allPorts(t, ctx, "tinygo")
	if len(ported) < 8 {
		if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
			t.Fatalf("TinyGo ports built: %v, want all eight (make plugins)", ported)
		}
		t.Skipf("TinyGo ports built: %v (make plugins)", ported)
	}
	c := &snapshotCache{base: w.Cluster()}
	s := scheduler.New(c, plugins, acts, cfg)
	if err := s.RunOnce(); err != nil {
		t.Fatal(err)
	}
	const sessions = 3
	c.binds.Store(0)
	for session := 1; session <= sessions; session++ {
		counts.reset()
		if err := s.RunOnce(); err != nil {
			t.Fatal(err)
		}
		counts.mu.Lock()
		if len(counts.allocs) == 0 {
			t.Errorf("session %d: the listener saw no allocation at all: is runtime.alloc still TinyGo's allocator?", session)
		}
		for module, byHook := range counts.allocs {
			total := 0
			for _, n := range byHook {
				total += n
			}
			t.Logf("session %d, %s: %d allocations (by hook ID: %s)", session, module, total, perHook(byHook))
			if limit := budget(module); total > limit {
				t.Errorf("session %d: %s allocated %d times (by hook ID: %s), want at most %d", session, module, total, perHook(byHook), limit)
			}
		}
		counts.mu.Unlock()
	}
	if got, want := c.binds.Load(), int64(sessions*w.Gangs*w.GangSize); got != want {
		t.Fatalf("bound %d pods in %d sessions, want %d", got, sessions, want)
	}
}

func perHook(byHook map[uint64]int) string {
	var parts []string
	for hook, n := range byHook {
		name := fmt.Sprint(hook)
		if hook == outsideCall {
			name = "outside calls"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

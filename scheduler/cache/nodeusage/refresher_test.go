package nodeusage

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

type fakeStore struct {
	mu    sync.Mutex
	names []string
	usage map[string]*api.NodeUsage
	sets  int
}

func (s *fakeStore) NodeNames() []string { return s.names }

func (s *fakeStore) SetNodeUsage(u map[string]*api.NodeUsage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sets++
	for n, v := range u {
		s.usage[n] = v
	}
}

func (s *fakeStore) cpu(node string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.usage[node]; u != nil {
		return u.CPUUsageAvg[api.UsagePeriod]
	}
	return -1
}

// A node that cannot be measured keeps its last measure; the cause is
// logged once, and forgotten when every node is measured again.
func TestRefreshKeepsTheLastGoodMeasure(t *testing.T) {
	f := &fakePrometheus{answers: map[string]string{"n1 cpu": vector("10"), "n1 memory": vector("20"), "n2 cpu": vector("30"), "n2 memory": vector("40")}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	store := &fakeStore{names: []string{"n1", "n2"}, usage: map[string]*api.NodeUsage{}}
	r := &refresher{store: store, logged: map[string]bool{}}
	m := conf.Metrics{Type: conf.MetricsPrometheus, Address: srv.URL, Interval: time.Second}

	r.refresh(context.Background(), m)
	if store.cpu("n1") != 10 || store.cpu("n2") != 30 || len(r.logged) != 0 {
		t.Fatalf("after a good measure: n1 %v, n2 %v, logged %v", store.cpu("n1"), store.cpu("n2"), r.logged)
	}

	f.mu.Lock()
	f.answers["n1 cpu"], f.answers["n2 cpu"] = vector("11"), vector()
	f.mu.Unlock()
	r.refresh(context.Background(), m)
	if store.cpu("n1") != 11 || store.cpu("n2") != 30 {
		t.Errorf("n2 failing: n1 %v (want 11), n2 %v (want its last measure, 30)", store.cpu("n1"), store.cpu("n2"))
	}
	if !r.logged["CPU usage: "+errNoSample.Error()] || len(r.logged) != 1 {
		t.Errorf("logged causes %v, want the missing sample", r.logged)
	}

	f.mu.Lock()
	f.answers["n2 cpu"] = vector("31")
	f.mu.Unlock()
	r.refresh(context.Background(), m)
	if store.cpu("n2") != 31 || len(r.logged) != 0 {
		t.Errorf("recovered: n2 %v, logged %v", store.cpu("n2"), r.logged)
	}

	// Without a metrics type nothing is asked and nothing is stored.
	sets := store.sets
	r.refresh(context.Background(), conf.Metrics{Interval: conf.DefaultMetricsInterval})
	if store.sets != sets || r.source != nil {
		t.Errorf("without a type: %d more stores, source %v", store.sets-sets, r.source)
	}
}

// A source that cannot be made is logged once; the refresher tries again
// at each interval.
func TestRefreshWithoutAPIServer(t *testing.T) {
	store := &fakeStore{names: []string{"n1"}, usage: map[string]*api.NodeUsage{}}
	r := &refresher{store: store, logged: map[string]bool{}}
	m := conf.Metrics{Type: conf.MetricsPrometheusAdaptor, Interval: time.Second}
	r.refresh(context.Background(), m)
	r.refresh(context.Background(), m)
	if r.source != nil || len(r.logged) != 1 || store.sets != 0 {
		t.Errorf("source %v, logged %v, stores %d", r.source, r.logged, store.sets)
	}
}

// Run measures at once, then every interval, and stops with its context.
func TestRunFollowsTheSettings(t *testing.T) {
	f := &fakePrometheus{answers: map[string]string{"n1 cpu": vector("10"), "n1 memory": vector("20")}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	store := &fakeStore{names: []string{"n1"}, usage: map[string]*api.NodeUsage{}}
	m := conf.Metrics{Type: conf.MetricsPrometheus, Address: srv.URL, Interval: 5 * time.Millisecond}
	settings := func() conf.Metrics { return m }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Run(ctx, settings, store, nil); close(done) }()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the first measure", func() bool { return store.cpu("n1") == 10 })
	f.mu.Lock()
	f.answers["n1 cpu"] = vector("12")
	f.mu.Unlock()
	waitFor("the next measure", func() bool { return store.cpu("n1") == 12 })
	cancel()
	<-done
}

func TestAddressPasswordIsNotLogged(t *testing.T) {
	if got := redacted("http://user:secret@prom:9090/x"); got != "http://user:xxxxx@prom:9090/x" {
		t.Errorf("redacted %q", got)
	}
}

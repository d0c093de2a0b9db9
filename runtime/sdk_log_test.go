package runtime

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The Go SDK's caldera.Log reaches the scheduler's log through the
// caldera.log import: one line per call, at its level. What the guest
// prints reaches it a line per line, however many writes made the line,
// and an unfinished line when the call returns.
func TestGuestLinesAreWhole(t *testing.T) {
	for mode, want := range map[string][]string{
		"log":     {"1 hostile: a line from session_open"},
		"println": {"1 hostile: println from session_open 42", "1 hostile: unfinished"},
	} {
		t.Run(mode, func(t *testing.T) {
			if got := guestLines(t, mode); !slices.Equal(got, want) {
				t.Errorf("log lines %q, want %q", got, want)
			}
		})
	}
}

func guestLines(t *testing.T, mode string) []string {
	var (
		mu    sync.Mutex
		lines []string
	)
	record := func(level int, msg string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, string(rune('0'+level))+" "+msg)
	}
	p, err := Load(context.Background(), buildGuest(t, "hostile", ""), Options{Name: "hostile", Limits: DefaultLimits(), Log: record})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: "hostile",
		Arguments: framework.Arguments{"hostile.hook": "session_open", "hostile.mode": mode}}}}}}
	ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, framework.Registry{"hostile": Factory("hostile", p, Policy{})}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ssn.Close()
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(lines)
}

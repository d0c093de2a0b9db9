package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// allocateSession opens a session of gangOnSmallNodes with a rawabi module
// answering allocate in the given mode.
func allocateSession(t *testing.T, name, mode string, policy Policy) *framework.Session {
	t.Helper()
	p, err := Load(context.Background(), buildGuest(t, "rawabi", "-X main.hooks=session_open,session_close,allocate -X main.allocate="+mode),
		Options{Name: name, Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name}}}}}
	ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, framework.Registry{name: Factory(name, p, policy)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ssn.Close)
	return ssn
}

// A module's allocate keeps a placement and names annotations for the
// pod's bind, which go when the placement is undone; or refuses it, and the
// statement's allocate fails with its reason, the task pending again. A
// refusal is an answer: no call failure is counted.
func TestAllocateAnnotatesAndRefuses(t *testing.T) {
	defer func(f func() time.Time) { clock = f }(clock)
	clock = func() time.Time { return time.Unix(0, 42) }
	const name = "allocate-refuse-odd"
	ssn := allocateSession(t, name, "refuse-odd", Policy{})
	job := ssn.Jobs["ns/pg"]
	p0, p1 := job.Tasks["uid-p0"], job.Tasks["uid-p1"]
	failures := testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues(name, abi.HookAllocate.String(), "status"))

	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(p0, ssn.NodeList[0]); err != nil {
		t.Fatalf("p0 (task 0) refused: %v", err)
	}
	if got := p0.BindAnnotations; len(got) != 2 || got["example.com/node"] != "0" || got["example.com/now"] != "42" {
		t.Errorf("p0's bind annotations %v, want example.com/node 0 and example.com/now 42", got)
	}
	err := stmt.Allocate(p1, ssn.NodeList[1])
	if err == nil || !strings.Contains(err.Error(), "odd tasks go nowhere") {
		t.Errorf("p1 (task 1): %v, want the module's refusal", err)
	}
	if p1.NodeName != "" || p1.BindAnnotations != nil {
		t.Errorf("refused p1 is on %q with %v, want on no node and without annotations", p1.NodeName, p1.BindAnnotations)
	}
	stmt.Discard()
	if p0.BindAnnotations != nil {
		t.Errorf("p0's annotations after the discard: %v", p0.BindAnnotations)
	}
	if n := testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues(name, abi.HookAllocate.String(), "status")) - failures; n != 0 {
		t.Errorf("%v failures counted for a refusal", n)
	}
}

// Annotations the scheduler reads to place the pod are not a module's to
// write: such a reply is a failed call, which refuses the placement, or,
// for an ignorable module, lets it stand without annotations.
func TestAllocateMayNotWriteTheSchedulersAnnotations(t *testing.T) {
	ssn := allocateSession(t, "allocate-scheduler-key", "scheduler-key", Policy{})
	p0 := ssn.Jobs["ns/pg"].Tasks["uid-p0"]
	err := framework.NewStatement(ssn).Allocate(p0, ssn.NodeList[0])
	if err == nil || !strings.Contains(err.Error(), "scheduling.k8s.io/group-name is the scheduler's") {
		t.Fatalf("allocate rewriting the PodGroup annotation: %v", err)
	}

	ssn = allocateSession(t, "allocate-scheduler-key-ignorable", "scheduler-key", Policy{Ignorable: true})
	p0 = ssn.Jobs["ns/pg"].Tasks["uid-p0"]
	if err := framework.NewStatement(ssn).Allocate(p0, ssn.NodeList[0]); err != nil || p0.BindAnnotations != nil {
		t.Fatalf("ignorable: %v, annotations %v; want the placement kept without them", err, p0.BindAnnotations)
	}
}

func TestCheckBindAnnotations(t *testing.T) {
	v := "x"
	big := strings.Repeat("x", maxBindAnnotationBytes)
	for _, c := range []struct {
		anns map[string]*string
		want string
	}{
		{map[string]*string{"volcano.sh/gpu-index": &v, "example.com/gone": nil}, ""},
		{map[string]*string{"not a key": &v}, `annotation key "not a key"`},
		{map[string]*string{"example.com/big": &big}, "more than 16384"},
	} {
		if got := checkBindAnnotations(c.anns); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.anns, got, c.want)
		}
	}
	many := map[string]*string{}
	for i := range maxBindAnnotations + 1 {
		many["example.com/k"+string(rune('a'+i))] = &v
	}
	if got := checkBindAnnotations(many); !strings.Contains(got, "more than 16") {
		t.Errorf("17 annotations: %q", got)
	}
}

// Command external-reserved is an example event handler: a node annotated
// caldera.sh/external-reserved (for example "cpu=6,memory=2Gi") has that
// much taken off its allocatable in the scheduler's cache, so that pods
// never land on resources used outside Kubernetes (VMs, another
// framework). A malformed annotation is logged once per node (per module
// instance) and ignored.
// It wants node events only.
package main

import (
	"fmt"
	"os"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&handler{warned: map[string]bool{}}) }

// Annotation is the node annotation the handler reads.
const Annotation = "caldera.sh/external-reserved"

type handler struct {
	// warned holds the nodes whose malformed annotation was logged.
	warned map[string]bool
}

func (*handler) Name() string { return "external-reserved" }

func (*handler) EventKinds() []string { return []string{"Node"} }

func (h *handler) OnCacheEvent(ev *caldera.CacheEvent) caldera.EventVerdict {
	n := ev.New
	if n == nil || n.Allocatable == nil { // a delete has no new object
		return caldera.PassEvent()
	}
	text, ok := n.Annotations[Annotation]
	if !ok || isBlank(text) {
		return caldera.PassEvent()
	}
	reserved, err := parseReservation(text)
	if err != nil {
		if !h.warned[n.Name] {
			h.warned[n.Name] = true
			fmt.Fprintf(os.Stderr, "node %s: annotation %s=%q is malformed (%v); ignored\n", n.Name, Annotation, text, err)
		}
		return caldera.PassEvent()
	}
	return caldera.AdjustAllocatable(subtract(*n.Allocatable, reserved))
}

// subtract takes r off a, no dimension going below zero; a scalar a does
// not have stays absent.
func subtract(a, r caldera.Resource) caldera.Resource {
	out := caldera.Resource{
		MilliCPU: max(a.MilliCPU-r.MilliCPU, 0),
		Memory:   max(a.Memory-r.Memory, 0),
	}
	for _, s := range a.Scalars {
		out.Scalars = append(out.Scalars, caldera.Scalar{Name: s.Name, Value: max(s.Value-r.Scalars.Get(s.Name), 0)})
	}
	return out
}

func isBlank(s string) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

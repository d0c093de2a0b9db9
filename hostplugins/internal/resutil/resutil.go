// Package resutil holds the resource arithmetic that Volcano's queue and
// share plugins rely on and that differs, in small but visible ways, from the
// general-purpose methods of scheduler/api: which dimensions count for a
// share, which comparisons are strict, and how admission reserves resources.
// Keeping these rules in one place lets drf, proportion and overcommit agree
// with Volcano and with each other.
package resutil

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Share is used/total, with nothing of nothing counting as 0 and something
// of nothing as 1.
func Share(used, total float64) float64 {
	if total == 0 {
		if used == 0 {
			return 0
		}
		return 1
	}
	return used / total
}

// DominantShare returns the largest per-dimension share of used against
// total, over the dimensions total holds, and the dimension it comes from.
func DominantShare(used, total *api.Resource) (v1.ResourceName, float64) {
	best, dim := 0.0, v1.ResourceName("")
	for _, n := range total.ResourceNames() {
		if s := Share(used.Get(n), total.Get(n)); s > best {
			best, dim = s, n
		}
	}
	return dim, best
}

// FitsRequested reports whether l stays within r in the dimensions that req
// asks for (cpu, memory, and positive scalars other than pods), with a strict
// comparison and no tolerance; it also returns the dimensions that do not.
// When l has no scalar dimensions at all only cpu and memory are compared.
// Admission (enqueue) and queue quotas use it so that a job is judged only on
// what it asks for.
func FitsRequested(l, r, req *api.Resource) (bool, []string) {
	var short []string
	if req.MilliCPU > 0 && l.MilliCPU > r.MilliCPU {
		short = append(short, string(v1.ResourceCPU))
	}
	if req.Memory > 0 && l.Memory > r.Memory {
		short = append(short, string(v1.ResourceMemory))
	}
	if l.Scalars != nil {
		first := len(short)
		for n, q := range req.Scalars {
			if n == v1.ResourcePods {
				continue
			}
			if q > 0 && l.Scalars[n] > r.Scalars[n] {
				short = append(short, string(n))
			}
		}
		// By name: Volcano lists them in map order, which varies.
		slices.Sort(short[first:])
	}
	return len(short) == 0, short
}

// FormatResourceNames is how Volcano words a refusal naming the resources
// it is short of: "prefix: verb cpu, verb memory", or prefix alone when
// none is named.
func FormatResourceNames(prefix, verb string, names []string) string {
	if len(names) == 0 {
		return prefix
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = verb + " " + n
	}
	return prefix + ": " + strings.Join(parts, ", ")
}

// Max returns a new resource holding the larger of l and r in every
// dimension. Negative scalar quantities are dropped.
func Max(l, r *api.Resource) *api.Resource {
	out := &api.Resource{}
	out.MilliCPU = max(l.MilliCPU, r.MilliCPU)
	out.Memory = max(l.Memory, r.Memory)
	if l.Scalars == nil && r.Scalars == nil {
		return out
	}
	out.Scalars = map[v1.ResourceName]float64{}
	for n, q := range l.Scalars {
		if q >= 0 {
			out.Scalars[n] = q
		}
	}
	for n, q := range r.Scalars {
		if q >= 0 {
			out.Scalars[n] = max(q, out.Scalars[n])
		}
	}
	return out
}

// Diff splits cur-prev into what grew and what shrank, dimension by
// dimension, a dimension missing on one side counting as zero.
func Diff(cur, prev *api.Resource) (grown, shrunk *api.Resource) {
	grown = &api.Resource{Scalars: map[v1.ResourceName]float64{}}
	shrunk = &api.Resource{Scalars: map[v1.ResourceName]float64{}}
	split := func(c, p float64) (float64, float64) {
		if c > p {
			return c - p, 0
		}
		return 0, p - c
	}
	grown.MilliCPU, shrunk.MilliCPU = split(cur.MilliCPU, prev.MilliCPU)
	grown.Memory, shrunk.Memory = split(cur.Memory, prev.Memory)
	names := map[v1.ResourceName]bool{}
	for n := range cur.Scalars {
		names[n] = true
	}
	for n := range prev.Scalars {
		names[n] = true
	}
	for n := range names {
		c, p := cur.Scalars[n], prev.Scalars[n]
		if c > p {
			grown.Scalars[n] = c - p
		} else {
			shrunk.Scalars[n] = p - c
		}
	}
	return grown, shrunk
}

// Identical reports exact equality, field by field, with an absent scalar
// map equal to an empty one but an absent dimension not equal to a zero one.
// Fixed-point loops use it to detect that an iteration changed nothing.
func Identical(a, b *api.Resource) bool {
	if a.MilliCPU != b.MilliCPU || a.Memory != b.Memory || a.MaxTaskNum != b.MaxTaskNum {
		return false
	}
	if len(a.Scalars) != len(b.Scalars) {
		return false
	}
	for n, q := range a.Scalars {
		if bq, ok := b.Scalars[n]; !ok || bq != q {
			return false
		}
	}
	return true
}

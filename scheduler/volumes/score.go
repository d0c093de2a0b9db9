package volumes

import (
	"fmt"
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// ShapePoint is one point of the volume binding score's shape: at this
// utilization (0-100) of the chosen volumes, this score (0-10).
type ShapePoint struct {
	Utilization int
	Score       int
}

// Scorer scores a node by how full the pod's claims would make the
// static volumes chosen there, per storage class, through a broken-linear
// shape, as kube-scheduler's VolumeBinding score does (VolumeCapacityPriority).
type Scorer struct {
	points []ShapePoint
}

// NewScorer checks a shape as kube-scheduler validates it: at least one
// point, utilizations within 0-100 and strictly increasing, scores within
// 0-10.
func NewScorer(shape []ShapePoint) (*Scorer, error) {
	if len(shape) == 0 {
		return nil, fmt.Errorf("shape: at least one point is required")
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			return nil, fmt.Errorf("shape[%d].utilization: %d is outside 0-100", i, p.Utilization)
		}
		if p.Score < 0 || p.Score > 10 {
			return nil, fmt.Errorf("shape[%d].score: %d is outside 0-10", i, p.Score)
		}
		if i > 0 && p.Utilization <= shape[i-1].Utilization {
			return nil, fmt.Errorf("shape[%d].utilization: utilization values must be sorted in increasing order", i)
		}
	}
	return &Scorer{points: append([]ShapePoint(nil), shape...)}, nil
}

// Score is the node's score (0-100) for the bindings chosen there; a node
// where no static volume is chosen scores 0.
func (sc *Scorer) Score(b *api.VolumeBinding) int64 {
	if sc == nil || b == nil || len(b.Static) == 0 {
		return 0
	}
	type usage struct{ requested, capacity int64 }
	perClass := map[string]*usage{}
	for _, sb := range b.Static {
		class := storagehelpers.GetPersistentVolumeClass(sb.Volume)
		u := perClass[class]
		if u == nil {
			u = &usage{}
			perClass[class] = u
		}
		req := sb.Claim.Spec.Resources.Requests[v1.ResourceStorage]
		capacity := sb.Volume.Spec.Capacity[v1.ResourceStorage]
		u.requested += req.Value()
		u.capacity += capacity.Value()
	}
	classes := make([]string, 0, len(perClass))
	for c := range perClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var sum int64
	for _, c := range classes {
		u := perClass[c]
		utilization := int64(100)
		if u.capacity != 0 && u.requested <= u.capacity {
			utilization = u.requested * 100 / u.capacity
		}
		sum += sc.at(utilization)
	}
	return int64(math.Round(float64(sum) / float64(len(classes))))
}

// at evaluates the shape (scores scaled to 0-100) at a utilization: flat
// before the first point and after the last, linear between points.
func (sc *Scorer) at(u int64) int64 {
	pts := sc.points
	score := func(i int) int64 { return int64(pts[i].Score) * 10 }
	for i := range pts {
		if u <= int64(pts[i].Utilization) {
			if i == 0 {
				return score(0)
			}
			u0, u1 := int64(pts[i-1].Utilization), int64(pts[i].Utilization)
			return score(i-1) + (score(i)-score(i-1))*(u-u0)/(u1-u0)
		}
	}
	return score(len(pts) - 1)
}

// Command overcommit is the Wasm port of Caldera's native overcommit plugin
// (Volcano's overcommit): it admits (enqueues) jobs only while the cluster,
// inflated by overcommit-factor (default 1.2; below 1 means the default),
// has room for their minResources next to what is in use and what admitted
// jobs still claim.
package main

import (
	"strconv"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&overcommit{}) }

const (
	factorArgument = "overcommit-factor"
	defaultFactor  = 1.2
)

// overcommit holds the session's accounting in the scheduler's float
// arithmetic (api.Resource): the factor makes idle fractional.
type overcommit struct {
	factor float64
	// idle is the overcommitted total less what is in use.
	idle resource
	// inqueue is what admitted jobs still claim.
	inqueue resource
}

func (*overcommit) Name() string { return "overcommit" }

// OnSessionOpen reads the factor and computes the room left and what
// admitted jobs claim.
func (o *overcommit) OnSessionOpen(s *caldera.Session) error {
	factor, err := float64Arg(s, factorArgument, defaultFactor)
	if err != nil {
		return err
	}
	if factor < 1.0 {
		factor = defaultFactor
	}
	o.factor = factor

	v := &s.View
	var total, used resource
	for i := range v.Nodes {
		total.addView(&v.Nodes[i].Allocatable)
		used.addView(&v.Nodes[i].Used)
	}
	o.idle = total
	o.idle.multi(factor)
	o.idle.sub(&used)

	o.inqueue = resource{}
	for i := range v.Jobs {
		j := &v.Jobs[i]
		switch j.Phase {
		case caldera.PodGroupInqueue:
			o.inqueue.addView(&j.MinResources)
		case caldera.PodGroupRunning:
			// A Running PodGroup below minMember (a finished driver, say)
			// does not reserve its minimum again.
			if allocatedTaskNum(j) >= j.MinAvailable {
				o.inqueue.add(unmetMinResources(j))
			}
		}
	}
	return nil
}

// JobEnqueueable permits a job whose minResources fit the room left next to
// what admitted jobs claim. A job without minResources asks for nothing and
// is permitted.
func (o *overcommit) JobEnqueueable(_ *caldera.Session, j *caldera.Job) caldera.Vote {
	if fitsRequested(&o.inqueue, &j.MinResources, &o.idle) {
		return caldera.VotePermit
	}
	return caldera.VoteReject
}

// JobEnqueued reserves an admitted job's minResources.
func (o *overcommit) JobEnqueued(_ *caldera.Session, j *caldera.Job) {
	o.inqueue.addView(&j.MinResources)
}

// float64Arg reads a number the way the scheduler's Arguments.Float64
// does: numbers of any kind, or a string holding one.
func float64Arg(s *caldera.Session, key string, def float64) (float64, error) {
	v, ok := s.Arguments[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case int:
		return float64(x), nil
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err == nil {
			return f, nil
		}
	}
	return def, caldera.ArgumentError(key, "a number", v)
}

package framework

import "github.com/caldera-scheduler/caldera/scheduler/api"

// Each combination rule that Volcano applies across tiers and plugins is
// written once here, generic over the hook's interface, and every hook that
// shares the rule uses it. The session's hook methods only say which rule.

// entry is one plugin's implementation of a hook.
type entry[F any] struct {
	plugin string
	fn     F
}

// tiered holds a hook's implementations, tier by tier, in configuration order.
type tiered[F any] [][]entry[F]

// empty reports whether no plugin offers the hook.
func (t tiered[F]) empty() bool {
	for _, tier := range t {
		if len(tier) > 0 {
			return false
		}
	}
	return true
}

// firstNonZero: the first non-zero answer, across tiers, wins (orderings).
func firstNonZero[F any](t tiered[F], call func(F) int) int {
	for _, tier := range t {
		for _, e := range tier {
			if r := call(e.fn); r != 0 {
				return r
			}
		}
	}
	return 0
}

// allTrue: every plugin must agree; no plugin means yes.
func allTrue[F any](t tiered[F], call func(F) bool) bool {
	for _, tier := range t {
		for _, e := range tier {
			if !call(e.fn) {
				return false
			}
		}
	}
	return true
}

// anyTrue: one plugin saying yes is enough; no plugin means no.
func anyTrue[F any](t tiered[F], call func(F) bool) bool {
	for _, tier := range t {
		for _, e := range tier {
			if call(e.fn) {
				return true
			}
		}
	}
	return false
}

// voted: a Reject anywhere decides no; otherwise the first tier with a Permit
// decides yes; if every plugin abstains the answer is yes.
func voted[F any](t tiered[F], call func(F) Vote) bool {
	for _, tier := range t {
		permitted := false
		for _, e := range tier {
			switch call(e.fn) {
			case Reject:
				return false
			case Permit:
				permitted = true
			}
		}
		if permitted {
			return true
		}
	}
	return true
}

// firstTierAllTrue: the first tier with any implementation decides, and
// within it every plugin must agree; no implementation means no.
func firstTierAllTrue[F any](t tiered[F], call func(F) bool) bool {
	for _, tier := range t {
		if len(tier) == 0 {
			continue
		}
		for _, e := range tier {
			if !call(e.fn) {
				return false
			}
		}
		return true
	}
	return false
}

// firstFailure: every plugin must pass; the first failure is returned with the
// plugin that spoke.
func firstFailure[F any](t tiered[F], call func(F) *Status) *Status {
	for _, tier := range t {
		for _, e := range tier {
			if s := call(e.fn); !s.IsSuccess() {
				return withPlugin(s, e.plugin)
			}
		}
	}
	return nil
}

// withPlugin names the plugin that failed. A status that already names
// one may be shared by many calls and is copied rather than written.
func withPlugin(s *Status, plugin string) *Status {
	switch s.Plugin {
	case plugin:
		return s
	case "":
		s.Plugin = plugin
		return s
	}
	c := *s
	c.Plugin = plugin
	return &c
}

// firstNonNil: the first non-nil answer wins.
func firstNonNil[F any, R any](t tiered[F], call func(F) *R) *R {
	for _, tier := range t {
		for _, e := range tier {
			if r := call(e.fn); r != nil {
				return r
			}
		}
	}
	return nil
}

// each calls every plugin.
func each[F any](t tiered[F], call func(F)) {
	for _, tier := range t {
		for _, e := range tier {
			call(e.fn)
		}
	}
}

// intersectVictims: within a tier the voters' victims are intersected and an
// empty answer vetoes the tier; the first tier with a non-nil result wins.
func intersectVictims[F any](t tiered[F], call func(F) ([]*api.TaskInfo, bool)) []*api.TaskInfo {
	var victims []*api.TaskInfo
	for _, tier := range t {
		for _, e := range tier {
			candidates, didVote := call(e.fn)
			if !didVote {
				continue
			}
			if len(candidates) == 0 {
				victims = nil
				break
			}
			if victims == nil {
				victims = candidates
				continue
			}
			victims = intersectTasks(victims, candidates)
		}
		if victims != nil {
			return victims
		}
	}
	return victims
}

func intersectTasks(a, b []*api.TaskInfo) []*api.TaskInfo {
	inB := make(map[api.TaskID]bool, len(b))
	for _, t := range b {
		inB[t.UID] = true
	}
	// An empty intersection is nil, as in Volcano: the tier then starts over
	// with the next voter, or yields to the next tier.
	var out []*api.TaskInfo
	for _, t := range a {
		if inB[t.UID] {
			out = append(out, t)
		}
	}
	return out
}

// unionVictims: within a tier the answers are united; the first tier with any
// victim wins.
func unionVictims[F any](t tiered[F], call func(F) []*api.TaskInfo) []*api.TaskInfo {
	for _, tier := range t {
		seen := map[api.TaskID]bool{}
		var out []*api.TaskInfo
		for _, e := range tier {
			for _, v := range call(e.fn) {
				if !seen[v.UID] {
					seen[v.UID] = true
					out = append(out, v)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

package framework

import (
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// answers builds a tiered hook whose plugins answer with fixed values.
func answers[R any](tiers ...[]R) tiered[func() R] {
	var t tiered[func() R]
	for _, tier := range tiers {
		var row []entry[func() R]
		for i, r := range tier {
			r := r
			row = append(row, entry[func() R]{plugin: string(rune('a' + i)), fn: func() R { return r }})
		}
		t = append(t, row)
	}
	return t
}

func call[R any](f func() R) R { return f() }

func TestFirstNonZero(t *testing.T) {
	for name, tc := range map[string]struct {
		t    tiered[func() int]
		want int
	}{
		"no plugins":                {answers[int](), 0},
		"all indifferent":           {answers([]int{0, 0}, []int{0}), 0},
		"first tier speaks":         {answers([]int{0, -1}, []int{1}), -1},
		"later tier breaks the tie": {answers([]int{0}, []int{1}), 1},
	} {
		if got := firstNonZero(tc.t, call[int]); got != tc.want {
			t.Errorf("%s: got %d, want %d", name, got, tc.want)
		}
	}
}

func TestAllTrueAnyTrue(t *testing.T) {
	if !allTrue(answers[bool](), call[bool]) {
		t.Error("allTrue with no plugin must be true")
	}
	if allTrue(answers([]bool{true}, []bool{false}), call[bool]) {
		t.Error("allTrue must fail when a later tier disagrees")
	}
	if anyTrue(answers[bool](), call[bool]) {
		t.Error("anyTrue with no plugin must be false")
	}
	if !anyTrue(answers([]bool{false}, []bool{true}), call[bool]) {
		t.Error("anyTrue must succeed when any plugin agrees")
	}
}

func TestVoted(t *testing.T) {
	for name, tc := range map[string]struct {
		t    tiered[func() Vote]
		want bool
	}{
		"no plugins":                     {answers[Vote](), true},
		"all abstain":                    {answers([]Vote{Abstain}, []Vote{Abstain}), true},
		"reject in tier one":             {answers([]Vote{Permit, Reject}), false},
		"permit in tier one wins":        {answers([]Vote{Permit}, []Vote{Reject}), true},
		"abstain then reject in tier 2":  {answers([]Vote{Abstain}, []Vote{Reject}), false},
		"reject after permit, same tier": {answers([]Vote{Permit, Abstain, Reject}), false},
	} {
		if got := voted(tc.t, call[Vote]); got != tc.want {
			t.Errorf("%s: got %v, want %v", name, got, tc.want)
		}
	}
}

func TestFirstTierAllTrue(t *testing.T) {
	for name, tc := range map[string]struct {
		t    tiered[func() bool]
		want bool
	}{
		"no plugins means not starving": {answers[bool](), false},
		"empty first tier is skipped":   {answers([]bool{}, []bool{true}), true},
		"first tier decides":            {answers([]bool{true}, []bool{false}), true},
		"one no in the tier decides":    {answers([]bool{true, false}), false},
	} {
		if got := firstTierAllTrue(tc.t, call[bool]); got != tc.want {
			t.Errorf("%s: got %v, want %v", name, got, tc.want)
		}
	}
}

func TestFirstFailureNamesThePlugin(t *testing.T) {
	h := answers([]*Status{nil, NewStatus(Skip)}, []*Status{NewStatus(Unschedulable, "Insufficient cpu")})
	s := firstFailure(h, call[*Status])
	if s == nil || s.Code != Unschedulable || s.Plugin != "a" || s.Message() != "Insufficient cpu" {
		t.Fatalf("got %+v, want Unschedulable from plugin a (first of tier two)", s)
	}
	if s := firstFailure(answers([]*Status{nil}), call[*Status]); s != nil {
		t.Fatalf("all passing gave %+v", s)
	}
}

func TestFirstNonNil(t *testing.T) {
	n1 := &api.NodeInfo{Name: "n1"}
	h := answers([]*api.NodeInfo{nil}, []*api.NodeInfo{n1, {Name: "n2"}})
	if got := firstNonNil(h, call[*api.NodeInfo]); got != n1 {
		t.Fatalf("got %v, want n1", got)
	}
}

func tasks(ids ...string) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, id := range ids {
		out = append(out, &api.TaskInfo{UID: api.TaskID(id)})
	}
	return out
}

type victimAnswer struct {
	victims []*api.TaskInfo
	voted   bool
}

func names(ts []*api.TaskInfo) []string {
	var out []string
	for _, t := range ts {
		out = append(out, string(t.UID))
	}
	return out
}

func TestIntersectVictims(t *testing.T) {
	run := func(tiers ...[]victimAnswer) []string {
		h := answers(tiers...)
		return names(intersectVictims(h, func(f func() victimAnswer) ([]*api.TaskInfo, bool) {
			a := f()
			return a.victims, a.voted
		}))
	}
	abstain := victimAnswer{}
	vote := func(ids ...string) victimAnswer { return victimAnswer{tasks(ids...), true} }
	for name, tc := range map[string]struct {
		got, want []string
	}{
		"all abstain":                    {run([]victimAnswer{abstain}), nil},
		"intersected within a tier":      {run([]victimAnswer{vote("a", "b"), abstain, vote("b", "c")}), []string{"b"}},
		"empty answer vetoes the tier":   {run([]victimAnswer{vote(), vote("a")}, []victimAnswer{vote("z")}), []string{"z"}},
		"first tier with victims wins":   {run([]victimAnswer{vote("a")}, []victimAnswer{vote("b")}), []string{"a"}},
		"disjoint answers fall through":  {run([]victimAnswer{vote("a"), vote("b")}), nil},
		"abstaining tier yields to next": {run([]victimAnswer{abstain}, []victimAnswer{vote("c")}), []string{"c"}},
	} {
		if len(tc.got) != len(tc.want) || (len(tc.got) > 0 && tc.got[0] != tc.want[0]) {
			t.Errorf("%s: got %v, want %v", name, tc.got, tc.want)
		}
	}
}

func TestUnionVictims(t *testing.T) {
	h := answers([][]*api.TaskInfo{nil, nil}, [][]*api.TaskInfo{tasks("a"), tasks("a", "b")}, [][]*api.TaskInfo{tasks("z")})
	got := names(unionVictims(h, call[[]*api.TaskInfo]))
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("got %v, want [a b] from the first tier with victims", got)
	}
}

package caldera

import "testing"

// claimReader records the volume and device checks each PredicateBatch
// call brings.
type claimReader struct {
	declares bool
	got      []*NodeClaims
}

func (*claimReader) Name() string                 { return "claims" }
func (*claimReader) OnSessionOpen(*Session) error { return nil }
func (c *claimReader) ClaimChecks() bool          { return c.declares }
func (c *claimReader) PredicateBatch(s *Session, _ *Task, nodes []*Node, _ []Verdict) {
	c.got = c.got[:0]
	for i := range nodes {
		c.got = append(c.got, s.NodeClaims(i))
	}
}

func TestDescribeSendsClaimChecksOnlyWhenDeclared(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Plugin
		want any // nil: no such key
	}{
		{"no declarer", &fuller{}, nil},
		{"declared false", &claimReader{}, nil},
		{"declared true", &claimReader{declares: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := describedAs(t, c.p)["claimChecks"]; got != c.want {
				t.Errorf("claimChecks = %v, want %v", got, c.want)
			}
		})
	}
}

// twoNodes is a view of two nodes and one task, with the given claim lists.
func twoNodes(tc TaskClaimsList, limits VolumeLimitsList) *OpenArgs {
	return &OpenArgs{View: View{Nodes: make([]Node, 2), Tasks: make([]Task, 1), TaskClaims: tc, VolumeLimits: limits}}
}

func TestClaimsCountMustMatchTheNodes(t *testing.T) {
	p := &claimReader{declares: true}
	Register(p)
	defer Register(nil)
	h := &host{}
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, request(t, nil, twoNodes(nil, nil)))); code != 0 {
		t.Fatalf("session_open: %d %s", code, msg)
	}
	fails := &NodeClaims{Checks: []ClaimCheck{{Stage: int32(StageBinding), Code: int32(Unschedulable), Reasons: []string{"node(s) didn't find available persistent volumes to bind"}}}}
	batch := &Args{Task: 0, Job: -1, Queue: -1, Nodes: []int32{0, 1}, Claims: NodeClaimsList{nil, fails}}
	if code, msg, _ := decodeReply(t, h.dispatch(hookPredicateBatch, request(t, nil, batch))); code != 0 {
		t.Fatalf("predicate_batch: %d %s", code, msg)
	}
	if len(p.got) != 2 || p.got[0] != nil || p.got[1] == nil || p.got[1].Checks[0].Ends() != true || p.got[1].Checks[0].Reasons[0] != fails.Checks[0].Reasons[0] {
		t.Errorf("the plugin read %+v", p.got)
	}
	batch.Claims = NodeClaimsList{fails}
	code, msg, _ := decodeReply(t, h.dispatch(hookPredicateBatch, request(t, nil, batch)))
	if code != codeDecodeFailed || msg != "predicate_batch: 1 claims for 2 nodes" {
		t.Errorf("one entry for two nodes: %d %q, want a decode failure", code, msg)
	}
	batch.Claims = NodeClaimsList{nil, {Checks: []ClaimCheck{{Stage: int32(StageZone), Code: 9}}}}
	code, msg, _ = decodeReply(t, h.dispatch(hookPredicateBatch, request(t, nil, batch)))
	if code != codeDecodeFailed || msg != "predicate_batch: claim check code 9" {
		t.Errorf("a check with code 9: %d %q, want a decode failure", code, msg)
	}
}

func TestClaimListsNameTheViewsObjects(t *testing.T) {
	for _, c := range []struct {
		name string
		open *OpenArgs
		want string // "": accepted
	}{
		{"in range", twoNodes(TaskClaimsList{{Task: 0, Volumes: []VolumeClaim{{Name: "data"}}}}, VolumeLimitsList{{Node: 1, Limits: map[string]int32{"ebs": 25}}}), ""},
		{"task out of range", twoNodes(TaskClaimsList{{Task: 1}}, nil), "session_open: taskClaims task handle 1 of 1"},
		{"node out of range", twoNodes(nil, VolumeLimitsList{{Node: -1}}), "session_open: volumeLimits node handle -1 of 2"},
		{"task twice", twoNodes(TaskClaimsList{{Task: 0}, {Task: 0}}, nil), "session_open: taskClaims: not in task handle order"},
		{"nodes out of order", twoNodes(nil, VolumeLimitsList{{Node: 1}, {Node: 0}}), "session_open: volumeLimits: not in node handle order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			Register(&claimReader{})
			defer Register(nil)
			h := &host{}
			code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, request(t, nil, c.open)))
			if c.want == "" {
				if code != 0 {
					t.Fatalf("session_open: %d %s", code, msg)
				}
				s := h.session
				if tc := s.Claims(&s.View.Tasks[0]); tc == nil || tc.Volumes[0].Name != "data" || s.VolumeLimits(&s.View.Nodes[1])["ebs"] != 25 ||
					s.VolumeLimits(&s.View.Nodes[0]) != nil {
					t.Errorf("claims %+v, limits %+v", tc, s.View.VolumeLimits)
				}
				return
			}
			if code != codeDecodeFailed || msg != c.want {
				t.Errorf("%d %q, want a decode failure %q", code, msg, c.want)
			}
		})
	}
}

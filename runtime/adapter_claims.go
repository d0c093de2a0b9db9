package runtime

import (
	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The volume and device checks the host runs for a module that declares
// claimChecks (ABI 1.10, docs/abi.md "Volumes and devices"): the native
// predicates plugin's, with the module's arguments. The module places
// their outcome among its own filters; the host adds their pre-predicate
// after the module's, reserves and releases with the placement events,
// and adds the volume binding score.

// claimsOffer says the framework hook is served for the checks even when
// the module does not declare it.
func (a *adapter) claimsOffer(h framework.Hook) bool {
	if a.claims == nil {
		return false
	}
	switch h {
	case framework.HookPrePredicate:
		return true
	case framework.HookBatchNodeOrder:
		return a.claims.Scores()
	}
	return false
}

// claimsOn returns predicate_batch's claims for the window's nodes: nil
// when every check passes on every one of them.
func (a *adapter) claimsOn(task *api.TaskInfo, c *predicateCache) []*abi.NodeClaims {
	c.claims = c.claims[:0]
	failing := false
	for _, h := range c.window {
		failed, ruledOut := a.claims.Check(task, a.ssn.NodeList[h])
		if len(failed) == 0 {
			c.claims = append(c.claims, nil)
			continue
		}
		failing = true
		nc := &abi.NodeClaims{RuledOut: ruledOut, Checks: make([]abi.ClaimCheck, len(failed))}
		for i, f := range failed {
			nc.Checks[i] = abi.ClaimCheck{Stage: int32(f.Stage), Code: abi.Code(f.Code), Reasons: f.Reasons}
		}
		c.claims = append(c.claims, nc)
	}
	if !failing {
		return nil
	}
	return c.claims
}

// claimsAlone is the checks' verdict when an ignorable module no longer
// takes part: the host still keeps pods off nodes their claims cannot
// use, with the checks' reasons in their order.
func (a *adapter) claimsAlone(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	failed, _ := a.claims.Check(task, node)
	if len(failed) == 0 {
		return nil
	}
	st := &framework.Status{Code: framework.Unschedulable}
	for _, f := range failed {
		st.Reasons = append(st.Reasons, f.Reasons...)
		if f.Ends() {
			st.Code = f.Code
		}
	}
	return st
}

var _ framework.AllocateRefuser = &adapter{}

package runtime

import (
	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/claims"
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
		node := a.ssn.NodeList[h]
		failed := a.claims.Check(task, node)
		if len(failed) == 0 {
			c.claims = append(c.claims, nil)
			continue
		}
		failing = true
		nc := &abi.NodeClaims{RuledOut: a.claims.RuledOut(task, node), Checks: make([]abi.ClaimCheck, len(failed))}
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
	reasons, code, _ := claims.Apply(a.claims.Check(task, node), claims.StageClaims, claims.StageDevices, nil)
	if len(reasons) == 0 {
		return nil
	}
	return &framework.Status{Code: code, Reasons: reasons}
}

var _ framework.AllocateRefuser = &adapter{}

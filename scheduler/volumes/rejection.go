package volumes

import "strings"

// Code is how firmly a check rules a pod or node out, in kube-scheduler's
// terms.
type Code int

const (
	// Unschedulable: the node may fit once something changes on it.
	Unschedulable Code = iota + 1
	// Unresolvable: nothing done on the node makes it fit.
	Unresolvable
	// Failed: the check could not be made (a missing storage class, a
	// volume that cannot be translated); kube-scheduler reports it as an
	// error status.
	Failed
)

// Plugin names, as kube-scheduler and Volcano name the checks in their
// messages.
const (
	VolumeBindingName    = "VolumeBinding"
	VolumeZoneName       = "VolumeZone"
	NodeVolumeLimitsName = "NodeVolumeLimits"
)

// Rejection says which check ruled a pod or node out, and why.
type Rejection struct {
	Plugin  string
	Code    Code
	Reasons []string
}

func reject(plugin string, code Code, reasons ...string) *Rejection {
	return &Rejection{Plugin: plugin, Code: code, Reasons: reasons}
}

// Message joins the reasons as kube-scheduler's status message does.
func (r *Rejection) Message() string { return strings.Join(r.Reasons, ", ") }

// Reasons, as kube-scheduler v1.32 words them.
const (
	ReasonBindConflict     = "node(s) didn't find available persistent volumes to bind"
	ReasonNodeConflict     = "node(s) had volume node affinity conflict"
	ReasonNotEnoughSpace   = "node(s) did not have enough free storage"
	ReasonPVNotExist       = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	ReasonZoneConflict     = "node(s) had no available volume zone"
	ReasonMaxVolumeCount   = "node(s) exceed max volume count"
	ReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
)

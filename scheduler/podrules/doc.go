// Package podrules holds kube-scheduler v1.32's pod placement rules that
// depend on other pods: inter-pod affinity and anti-affinity (filter and
// score) and pod topology spread (filter and score), with kube-scheduler's
// reason strings and integer arithmetic. The predicates plugin filters with
// them and nodeorder scores with them, each keeping its own Index of the
// session's pods; the Wasm runtime describes them (Describe) to the ports,
// whose guests apply the same rules. It lies below both, which know nothing
// of each other.
//
// kube-scheduler recomputes a PreFilter state per pod from every pod in the
// cluster. Here a state is kept per rule template (pods with equal
// namespace, labels, affinity, spread constraints, node selector and
// tolerations share one: a gang made from one pod template shares it) and is
// brought up to date incrementally: the Index logs every pod placed or
// removed in the session, and a state applies the entries it has not seen
// yet before it answers. A discarded statement removes what it placed, so
// the log undoes its contribution too. The answers equal a fresh
// computation over the pods on the nodes at that moment.
package podrules

package api

import "unicode/utf8"

// Limits of what the scheduler writes to the API server in free text. An
// Event's note is at most EventMessageLimit bytes (the API server's limit
// for an Event's note, which kube-scheduler cuts its FailedScheduling
// Events to); a condition's message has no limit of its own but travels in
// a status update, which the API server refuses over its request size, so
// the scheduler keeps it to ConditionMessageLimit. A fit error with a long
// reason per node (an extender's, say) would otherwise be refused whole.
const (
	EventMessageLimit     = 1024
	ConditionMessageLimit = 32 << 10
)

// TruncateMessage cuts msg to at most limit bytes, ending it with " ..." as
// kube-scheduler does, and never inside a character.
func TruncateMessage(msg string, limit int) string {
	if len(msg) <= limit {
		return msg
	}
	const suffix = " ..."
	n := limit - len(suffix)
	for n > 0 && !utf8.RuneStart(msg[n]) {
		n--
	}
	return msg[:n] + suffix
}

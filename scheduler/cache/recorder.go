package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// truncatingRecorder cuts every Event's message to what the API server
// takes (api.EventMessageLimit): an Event over it would be refused, and
// the reason it carries lost.
type truncatingRecorder struct{ record.EventRecorder }

func (r truncatingRecorder) Event(obj runtime.Object, eventType, reason, message string) {
	r.EventRecorder.Event(obj, eventType, reason, api.TruncateMessage(message, api.EventMessageLimit))
}

func (r truncatingRecorder) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (r truncatingRecorder) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventType, reason, format string, args ...any) {
	r.EventRecorder.AnnotatedEventf(obj, annotations, eventType, reason, "%s", api.TruncateMessage(fmt.Sprintf(format, args...), api.EventMessageLimit))
}

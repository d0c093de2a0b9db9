package runtime

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The allocate hook (ABI 1.12): a module that declares it is asked whether
// each placement stands, and may give the pod annotations for its bind, as
// a Volcano event handler's AllocateFunc may refuse a placement and
// deviceshare names the card a pod gets.

// Limits on what one allocate reply may write on a pod: a module decides
// where pods go, not how large their objects grow.
const (
	maxBindAnnotations     = 16
	maxBindAnnotationBytes = 16 << 10
)

// scheduledBy are the annotations the scheduler reads to place a pod: a
// module may not rewrite them.
var scheduledBy = map[string]bool{
	api.GroupNameAnnotation:            true,
	"scheduling.volcano.sh/group-name": true,
}

// clock is the time allocate tells modules, whose own clocks are fakes.
var clock = time.Now

// askAllocate asks the module about the task's placement, whose event is
// the last queued, and sets the annotations it gives. It returns the
// refusal, or the failure when the plugin is not ignorable.
func (a *adapter) askAllocate(task *api.TaskInfo) error {
	if !a.mod.Implements(abi.HookAllocate) {
		return nil
	}
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return nil
	}
	if err := a.ready(); err != nil {
		return a.allocateFailed(err)
	}
	var res abi.AllocateResult
	if _, err := a.send(abi.HookAllocate, abi.AllocateArgs{Task: t, Now: clock().UnixNano()}, &res); err != nil {
		return a.allocateFailed(err)
	}
	if res.Refusal != "" {
		return fmt.Errorf("plugin %s refused the placement of %s on %s: %s", a.name, task.Key(), task.NodeName, res.Refusal)
	}
	if problem := checkBindAnnotations(res.Annotations); problem != "" {
		return a.allocateFailed(a.unusable(abi.HookAllocate, problem))
	}
	if len(res.Annotations) > 0 {
		task.SetBindAnnotations(res.Annotations)
		given := a.annotated[task.UID]
		for k, v := range res.Annotations {
			if v != nil {
				given = append(given, k)
			}
		}
		a.annotated[task.UID] = given
	}
	return nil
}

// allocateFailed logs a failed allocate call: the placement is refused,
// unless the plugin is ignorable, when it stands without annotations.
func (a *adapter) allocateFailed(err error) error {
	a.failed(abi.HookAllocate, err)
	if a.policy.Ignorable {
		return nil
	}
	return err
}

// dropBindAnnotations takes back what the module gave a task leaving its
// node.
func (a *adapter) dropBindAnnotations(task *api.TaskInfo) {
	keys, ok := a.annotated[task.UID]
	if !ok {
		return
	}
	delete(a.annotated, task.UID)
	drop := make(map[string]*string, len(keys))
	for _, k := range keys {
		drop[k] = nil
	}
	task.SetBindAnnotations(drop)
}

// checkBindAnnotations says what is wrong with a reply's annotations, ""
// when nothing is.
func checkBindAnnotations(anns map[string]*string) string {
	if len(anns) > maxBindAnnotations {
		return fmt.Sprintf("%d annotations, more than %d", len(anns), maxBindAnnotations)
	}
	size := 0
	for k, v := range anns {
		if errs := validation.IsQualifiedName(strings.ToLower(k)); len(errs) > 0 {
			return fmt.Sprintf("annotation key %q: %s", k, strings.Join(errs, "; "))
		}
		if scheduledBy[k] {
			return fmt.Sprintf("annotation %s is the scheduler's", k)
		}
		size += len(k)
		if v != nil {
			size += len(*v)
		}
	}
	if size > maxBindAnnotationBytes {
		return fmt.Sprintf("annotations of %d bytes, more than %d", size, maxBindAnnotationBytes)
	}
	return ""
}

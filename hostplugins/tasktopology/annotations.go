package tasktopology

import (
	"fmt"
	"strings"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The PodGroup annotations the plugin reads, as Volcano names them.
const (
	AffinityAnnotation     = "volcano.sh/task-topology-affinity"
	AntiAffinityAnnotation = "volcano.sh/task-topology-anti-affinity"
	TaskOrderAnnotation    = "volcano.sh/task-topology-task-order"
)

// topology is a job's rules as its annotations state them: groups of role
// names, and roles in the order they are to be placed. Empty names, which
// stray separators leave, are kept as Volcano keeps them; no pod has an
// empty role in a bucket, so they decide nothing.
type topology struct {
	affinity     [][]string
	antiAffinity [][]string
	taskOrder    []string
}

// readTopology returns the job's rules, nil when its PodGroup has none of
// the annotations, or an error naming the first unusable name.
func readTopology(job *api.JobInfo) (*topology, error) {
	if job.PodGroup == nil {
		return nil, nil
	}
	anns := job.PodGroup.Annotations
	aff, hasAff := anns[AffinityAnnotation]
	anti, hasAnti := anns[AntiAffinityAnnotation]
	order, hasOrder := anns[TaskOrderAnnotation]
	if !hasAff && !hasAnti && !hasOrder {
		return nil, nil
	}
	roles := map[string]bool{}
	for _, t := range job.Tasks {
		roles[t.TaskRole] = true
	}
	out := &topology{}
	var err error
	if hasAff {
		if out.affinity, err = groups(job, roles, AffinityAnnotation, aff); err != nil {
			return nil, err
		}
	}
	if hasAnti {
		if out.antiAffinity, err = groups(job, roles, AntiAffinityAnnotation, anti); err != nil {
			return nil, err
		}
	}
	if hasOrder {
		out.taskOrder = strings.Split(order, ",")
		if err := checkGroup(job, roles, TaskOrderAnnotation, out.taskOrder); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// groups splits "a,b;c" into [[a b] [c]] and checks every group.
func groups(job *api.JobInfo, roles map[string]bool, key, value string) ([][]string, error) {
	parts := strings.Split(value, ";")
	out := make([][]string, len(parts))
	for i, p := range parts {
		out[i] = strings.Split(p, ",")
		if err := checkGroup(job, roles, key, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkGroup refuses a name no pod of the job has as its role, and a name
// twice in one group.
func checkGroup(job *api.JobInfo, roles map[string]bool, key string, group []string) error {
	seen := map[string]bool{}
	for _, name := range group {
		if name == "" {
			continue
		}
		if !roles[name] {
			return fmt.Errorf("%s: task %q does not exist in job %s", key, name, job.Key())
		}
		if seen[name] {
			return fmt.Errorf("%s: task %q is named twice in one group of job %s", key, name, job.Key())
		}
		seen[name] = true
	}
	return nil
}

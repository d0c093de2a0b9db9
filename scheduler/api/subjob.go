package api

import (
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/rand"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

// SubJobID identifies a sub-job: "namespace/podgroup/policy-values" for a
// sub-group, the job's own ID for its default sub-job.
type SubJobID string

// SubJobGID identifies a sub-group policy of a job: "namespace/podgroup/policy".
// Every sub-job a policy forms shares it.
type SubJobGID string

// SubJobInfo is a sub-gang of a job whose PodGroup has spec.subGroupPolicy,
// as Volcano v1.15 models it (pkg/scheduler/api/sub_job_info.go): the pods
// a policy groups by the values of its matchLabelKeys, placed as a gang of
// subGroupSize, within its own network topology. Pods no policy groups
// form the job's default sub-job, which needs one pod and follows the
// job's network topology.
type SubJobInfo struct {
	GID SubJobGID
	UID SubJobID
	Job JobID

	// MinAvailable is the policy's subGroupSize (1 when unset, and for the
	// default sub-job).
	MinAvailable int32
	// Priority is the highest priority of a task it has held (0 when all
	// are below): as in Volcano, it does not fall when that task leaves.
	Priority int32
	// MatchIndex is the first match value read as a number (0 otherwise),
	// by which sub-jobs are ordered when plugins do not decide.
	MatchIndex int

	Tasks           TasksMap
	TaskStatusIndex map[TaskStatus]TasksMap

	// NetworkTopology is the policy's (the job's, for the default
	// sub-job), adjusted at session open as the job's is.
	NetworkTopology *v1beta1.NetworkTopologySpec
	// AllocatedHyperNode is the lowest hypernode holding what the sub-job
	// placed; the cache keeps it between sessions.
	AllocatedHyperNode string
}

func newSubJob(gid SubJobGID, uid SubJobID, job JobID, size *int32, nt *v1beta1.NetworkTopologySpec, matchValues []string) *SubJobInfo {
	sj := &SubJobInfo{
		GID: gid, UID: uid, Job: job, MinAvailable: 1,
		Tasks:           TasksMap{},
		TaskStatusIndex: map[TaskStatus]TasksMap{},
		NetworkTopology: nt.DeepCopy(),
	}
	if size != nil {
		sj.MinAvailable = *size
	}
	if len(matchValues) > 0 {
		if v, err := strconv.Atoi(matchValues[0]); err == nil {
			sj.MatchIndex = v
		}
	}
	return sj
}

func (sj *SubJobInfo) addTask(t *TaskInfo) {
	sj.Tasks[t.UID] = t
	indexTask(sj.TaskStatusIndex, t)
	if t.Priority > sj.Priority {
		sj.Priority = t.Priority
	}
}

func (sj *SubJobInfo) deleteTask(t *TaskInfo) {
	delete(sj.Tasks, t.UID)
	unindexTask(sj.TaskStatusIndex, t)
}

// ReadyTaskNum counts tasks that hold or held resources.
func (sj *SubJobInfo) ReadyTaskNum() int32 { return readyIn(sj.TaskStatusIndex) }

// WaitingTaskNum counts pipelined tasks.
func (sj *SubJobInfo) WaitingTaskNum() int32 { return int32(len(sj.TaskStatusIndex[Pipelined])) }

// PendingBestEffortTaskNum counts pending tasks that request nothing.
func (sj *SubJobInfo) PendingBestEffortTaskNum() int32 {
	return pendingBestEffortIn(sj.TaskStatusIndex)
}

// AllocatedTaskNum counts the tasks in an allocated status.
func (sj *SubJobInfo) AllocatedTaskNum() int { return allocatedIn(sj.TaskStatusIndex) }

// IsReady: the sub-gang has its minimum holding resources.
func (sj *SubJobInfo) IsReady() bool {
	return sj.ReadyTaskNum()+sj.PendingBestEffortTaskNum() >= sj.MinAvailable
}

// IsPipelined: the sub-gang has its minimum holding or waiting for resources.
func (sj *SubJobInfo) IsPipelined() bool {
	return sj.WaitingTaskNum()+sj.ReadyTaskNum()+sj.PendingBestEffortTaskNum() >= sj.MinAvailable
}

// GetMinResources is what the sub-job's pending tasks request: Volcano
// takes a sub-gang to need all of its pods.
func (sj *SubJobInfo) GetMinResources() *Resource {
	r := EmptyResource()
	for _, t := range sj.TaskStatusIndex[Pending] {
		r.Add(t.InitResreq)
	}
	return r
}

// HardTopology reports whether the sub-job must be placed within one
// hypernode of at most the returned tier.
func (sj *SubJobInfo) HardTopology() (bool, int) { return hardTopology(sj.NetworkTopology) }

// HasSubJobs reports whether the job's PodGroup divides it into sub-jobs
// (spec.subGroupPolicy).
func (j *JobInfo) HasSubJobs() bool { return j.SubJobs != nil }

// DefaultSubJobID is the ID of the sub-job holding the pods no policy groups.
func (j *JobInfo) DefaultSubJobID() SubJobID { return SubJobID(j.UID) }

// SubJobOf returns the sub-job holding the task, nil for a job without
// sub-jobs.
func (j *JobInfo) SubJobOf(id TaskID) *SubJobInfo {
	if j.SubJobs == nil {
		return nil
	}
	return j.SubJobs[j.TaskToSubJob[id]]
}

// resetSubJobs groups the job's tasks afresh by its PodGroup's policies.
// With keep (the policies are unchanged) every sub-job that remains keeps
// its allocated hypernode: Volcano regroups only when the policies change,
// and grouping again when they did not gives the same sub-jobs. Changed
// policies start the sub-jobs afresh, their hypernodes found again from
// their tasks' nodes at the next session, as in Volcano.
func (j *JobInfo) resetSubJobs(keep bool) {
	var policies []v1beta1.SubGroupPolicySpec
	if j.PodGroup != nil {
		policies = j.PodGroup.Spec.SubGroupPolicy
	}
	if len(policies) == 0 {
		j.SubJobs, j.TaskToSubJob, j.MinSubJobs = nil, nil, nil
		return
	}
	old := j.SubJobs
	j.SubJobs, j.TaskToSubJob, j.MinSubJobs = map[SubJobID]*SubJobInfo{}, map[TaskID]SubJobID{}, map[SubJobGID]int32{}
	for _, p := range policies {
		n := int32(0)
		if p.MinSubGroups != nil {
			n = *p.MinSubGroups
		}
		j.MinSubJobs[subJobGID(j.UID, p.Name)] = n
	}
	for _, t := range j.Tasks {
		j.addTaskToSubJob(t)
	}
	if !keep {
		return
	}
	for id, sj := range j.SubJobs {
		if o := old[id]; o != nil {
			sj.AllocatedHyperNode = o.AllocatedHyperNode
		}
	}
}

// cloneSubJobs gives c, a copy of j with its tasks, j's sub-jobs: the
// same grouping, its sub-jobs' settings and allocated hypernodes copied,
// and only the sub-jobs that hold a task, as Volcano's clone (which groups
// the tasks again) has them. Grouping again would read every pod's labels
// against every policy, in every session.
func (c *JobInfo) cloneSubJobs(j *JobInfo) {
	c.SubJobs, c.TaskToSubJob = map[SubJobID]*SubJobInfo{}, make(map[TaskID]SubJobID, len(j.TaskToSubJob))
	c.MinSubJobs = maps.Clone(j.MinSubJobs)
	for id, t := range c.Tasks {
		o := j.SubJobOf(id)
		if o == nil { // not grouped in j: group it here
			c.addTaskToSubJob(t)
			continue
		}
		sj := c.SubJobs[o.UID]
		if sj == nil {
			sj = &SubJobInfo{GID: o.GID, UID: o.UID, Job: o.Job, MinAvailable: o.MinAvailable, MatchIndex: o.MatchIndex,
				Tasks: TasksMap{}, TaskStatusIndex: map[TaskStatus]TasksMap{},
				NetworkTopology: o.NetworkTopology.DeepCopy(), AllocatedHyperNode: o.AllocatedHyperNode}
			c.SubJobs[o.UID] = sj
		}
		sj.addTask(t)
		c.TaskToSubJob[id] = o.UID
	}
}

func (j *JobInfo) addTaskToSubJob(t *TaskInfo) {
	sj := j.subJobFor(t)
	sj.addTask(t)
	j.TaskToSubJob[t.UID] = sj.UID
}

func (j *JobInfo) deleteTaskFromSubJob(t *TaskInfo) {
	if sj := j.SubJobs[j.TaskToSubJob[t.UID]]; sj != nil {
		sj.deleteTask(t)
	}
	delete(j.TaskToSubJob, t.UID)
}

// subJobFor returns (creating it) the sub-job of the first policy that
// groups the task's pod, or the default sub-job.
func (j *JobInfo) subJobFor(t *TaskInfo) *SubJobInfo {
	var policies []v1beta1.SubGroupPolicySpec
	if j.PodGroup != nil {
		policies = j.PodGroup.Spec.SubGroupPolicy
	}
	for i := range policies {
		p := &policies[i]
		values := matchValues(p, t)
		if len(values) == 0 {
			continue
		}
		id := subJobID(j.UID, p.Name, values)
		sj := j.SubJobs[id]
		if sj == nil {
			sj = newSubJob(subJobGID(j.UID, p.Name), id, j.UID, p.SubGroupSize, p.NetworkTopology, values)
			j.SubJobs[id] = sj
		}
		return sj
	}
	id := j.DefaultSubJobID()
	sj := j.SubJobs[id]
	if sj == nil {
		sj = newSubJob(SubJobGID(j.UID), id, j.UID, nil, j.NetworkTopology, nil)
		j.SubJobs[id] = sj
	}
	return sj
}

// matchValues returns the values of the policy's matchLabelKeys on the
// task's pod, or nil when the pod does not match the policy's labelSelector
// or lacks one of the keys. A policy without matchLabelKeys groups no pod,
// as in Volcano: the next policy is tried, then the default sub-job.
func matchValues(p *v1beta1.SubGroupPolicySpec, t *TaskInfo) []string {
	if t.Pod == nil || len(p.MatchLabelKeys) == 0 {
		return nil
	}
	if p.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.LabelSelector)
		if err != nil || !sel.Matches(labels.Set(t.Pod.Labels)) {
			return nil
		}
	}
	values := make([]string, 0, len(p.MatchLabelKeys))
	for _, k := range p.MatchLabelKeys {
		v := t.Pod.Labels[k]
		if v == "" {
			return nil
		}
		values = append(values, v)
	}
	return values
}

func subJobGID(job JobID, policy string) SubJobGID {
	return SubJobGID(fmt.Sprintf("%s/%s", job, policy))
}

// subJobID joins the match values; past 128 bytes they are replaced by
// their FNV-32a hash, encoded as Volcano encodes it, so that IDs (which
// break ties in sub-job order) are Volcano's.
func subJobID(job JobID, policy string, values []string) SubJobID {
	id := strings.Join(values, "-")
	if len(id) > 128 {
		h := fnv.New32a()
		_, _ = h.Write([]byte(id))
		id = rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	}
	return SubJobID(fmt.Sprintf("%s/%s-%s", job, policy, id))
}

// CheckSubJobValid: every policy still has at least minSubGroups sub-jobs.
func (j *JobInfo) CheckSubJobValid() bool {
	count := map[SubJobGID]int32{}
	for _, sj := range j.SubJobs {
		count[sj.GID]++
	}
	for gid, min := range j.MinSubJobs {
		if count[gid] < min {
			return false
		}
	}
	return true
}

// CheckSubJobReady: every policy has minSubGroups sub-jobs ready.
func (j *JobInfo) CheckSubJobReady() bool {
	return j.subJobsMeet((*SubJobInfo).IsReady)
}

// CheckSubJobPipelined: every policy has minSubGroups sub-jobs pipelined.
func (j *JobInfo) CheckSubJobPipelined() bool {
	return j.subJobsMeet((*SubJobInfo).IsPipelined)
}

func (j *JobInfo) subJobsMeet(cond func(*SubJobInfo) bool) bool {
	count := map[SubJobGID]int32{}
	for _, sj := range j.SubJobs {
		if cond(sj) {
			count[sj.GID]++
		}
	}
	for gid, min := range j.MinSubJobs {
		if min != 0 && count[gid] < min {
			return false
		}
	}
	return true
}

// ContainsNetworkTopology reports whether the job or one of its sub-jobs
// has a network topology.
func (j *JobInfo) ContainsNetworkTopology() bool {
	if j.NetworkTopology != nil {
		return true
	}
	for _, sj := range j.SubJobs {
		if sj.NetworkTopology != nil {
			return true
		}
	}
	return false
}

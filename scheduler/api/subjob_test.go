package api

import (
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

func subJobPod(name string, priority int32, labels map[string]string) *TaskInfo {
	return NewTaskInfo(&v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), Labels: labels},
		Spec:       v1.PodSpec{Priority: &priority},
	})
}

// The pods of a PodGroup with sub-group policies are grouped as Volcano
// v1.15 groups them (sub_job_info_test.go's match-value and ID cases): by
// the values of the first matching policy's matchLabelKeys, among the pods
// its labelSelector selects; a pod lacking a key, or a policy without
// keys, leaves the pod to the default sub-job, which needs one pod and
// takes the job's topology.
func TestSubJobGrouping(t *testing.T) {
	long := strings.Repeat("x", 129)
	pg := &v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"}, Spec: v1beta1.PodGroupSpec{
		MinMember:       2,
		NetworkTopology: &v1beta1.NetworkTopologySpec{Mode: v1beta1.SoftNetworkTopologyMode},
		SubGroupPolicy: []v1beta1.SubGroupPolicySpec{
			{Name: "workers", SubGroupSize: ptr.To[int32](2), MinSubGroups: ptr.To[int32](2), MatchLabelKeys: []string{"rank"},
				LabelSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}},
				NetworkTopology: &v1beta1.NetworkTopologySpec{Mode: v1beta1.HardNetworkTopologyMode, HighestTierAllowed: ptr.To(1)}},
			{Name: "nokeys", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "ps"}}},
			{Name: "long", MatchLabelKeys: []string{"long"}},
		},
	}}
	job := NewJobInfo("ns/pg")
	w0a := subJobPod("w0a", 5, map[string]string{"role": "worker", "rank": "0"})
	job.AddTaskInfo(w0a) // before its PodGroup: grouped when it comes
	job.SetPodGroup(pg)
	w0b := subJobPod("w0b", 1, map[string]string{"role": "worker", "rank": "0"})
	w7 := subJobPod("w7", 0, map[string]string{"role": "worker", "rank": "7"})
	noRank := subJobPod("norank", 0, map[string]string{"role": "worker"})
	ps := subJobPod("ps", 0, map[string]string{"role": "ps", "rank": "1"})
	lng := subJobPod("lng", 0, map[string]string{"long": long})
	for _, task := range []*TaskInfo{w0b, w7, noRank, ps, lng} {
		job.AddTaskInfo(task)
	}

	for _, c := range []struct {
		task  *TaskInfo
		want  SubJobID
		min   int32
		index int
	}{
		{w0a, "ns/pg/workers-0", 2, 0},
		{w0b, "ns/pg/workers-0", 2, 0},
		{w7, "ns/pg/workers-7", 2, 7},
		{noRank, "ns/pg", 1, 0},
		{ps, "ns/pg", 1, 0},
	} {
		sj := job.SubJobOf(c.task.UID)
		if sj == nil || sj.UID != c.want || sj.MinAvailable != c.min || sj.MatchIndex != c.index {
			t.Errorf("%s: sub-job %+v, want %s with minimum %d and index %d", c.task.Name, sj, c.want, c.min, c.index)
		}
	}
	if got := job.SubJobOf(lng.UID).UID; strings.Contains(string(got), long) || !strings.HasPrefix(string(got), "ns/pg/long-") {
		t.Errorf("129-byte match value: ID %q, want it hashed after ns/pg/long-", got)
	}
	if nt := job.SubJobs["ns/pg"].NetworkTopology; nt == nil || nt.Mode != v1beta1.SoftNetworkTopologyMode {
		t.Errorf("default sub-job topology %+v, want the job's", nt)
	}
	if nt := job.SubJobs["ns/pg/workers-0"].NetworkTopology; nt == nil || *nt.HighestTierAllowed != 1 {
		t.Errorf("workers-0 topology %+v, want its policy's", nt)
	}
	if p := job.SubJobs["ns/pg/workers-0"].Priority; p != 5 {
		t.Errorf("workers-0 priority %d, want its highest task's, 5", p)
	}
	job.DeleteTaskInfo(w0a)
	if p := job.SubJobs["ns/pg/workers-0"].Priority; p != 5 {
		t.Errorf("workers-0 priority after its highest task left: %d, want 5 (Volcano does not lower it)", p)
	}
	job.AddTaskInfo(w0a)

	// Two workers sub-jobs exist: valid. Ready needs both placed in full.
	if !job.CheckSubJobValid() {
		t.Error("two worker sub-jobs for minSubGroups 2: not valid")
	}
	job.UpdateTaskStatus(w0a, Allocated)
	job.UpdateTaskStatus(w0b, Pipelined)
	job.UpdateTaskStatus(w7, Allocated)
	w0, s7 := job.SubJobs["ns/pg/workers-0"], job.SubJobs["ns/pg/workers-7"]
	if w0.IsReady() || !w0.IsPipelined() || s7.IsReady() {
		t.Errorf("workers-0 ready %v pipelined %v, workers-7 ready %v; want false, true, false", w0.IsReady(), w0.IsPipelined(), s7.IsReady())
	}
	if job.CheckSubJobReady() || job.CheckSubJobPipelined() {
		t.Error("one worker sub-job pipelined, the other short: the policy's two are neither ready nor pipelined")
	}
	w8 := subJobPod("w8", 0, map[string]string{"role": "worker", "rank": "7"})
	job.AddTaskInfo(w8)
	job.UpdateTaskStatus(w8, Allocated)
	if job.CheckSubJobReady() || !job.CheckSubJobPipelined() {
		t.Error("workers-7 ready, workers-0 pipelined: want the job's sub-jobs pipelined, not ready")
	}
	job.UpdateTaskStatus(w0b, Allocated)
	if !job.CheckSubJobReady() {
		t.Error("both worker sub-jobs placed in full: not ready")
	}

	w0.AllocatedHyperNode = "leaf-a"
	job.SetPodGroup(pg.DeepCopy()) // a status update: the policies stay
	if got := job.SubJobs["ns/pg/workers-0"].AllocatedHyperNode; got != "leaf-a" {
		t.Errorf("PodGroup updated with the same policies: workers-0's hypernode %q, want leaf-a kept", got)
	}
	w0 = job.SubJobs["ns/pg/workers-0"]
	c := job.Clone()
	if got := c.SubJobs["ns/pg/workers-0"]; got == w0 || got.AllocatedHyperNode != "leaf-a" || got.Tasks[w0a.UID] == w0a {
		t.Errorf("clone's workers-0 %+v: want its own copy, with the allocated hypernode kept", got)
	}
	job.DeleteTaskInfo(w7)
	job.DeleteTaskInfo(w8)
	if !job.CheckSubJobValid() || job.Clone().CheckSubJobValid() {
		t.Error("workers-7 lost its pods: want it still counted where it was (Volcano keeps an empty sub-job), and gone from a session's copy (built from the tasks, as Volcano's clone is)")
	}
	changed := pg.DeepCopy()
	changed.Spec.SubGroupPolicy[0].SubGroupSize = ptr.To[int32](3)
	job.SetPodGroup(changed)
	if got := job.SubJobs["ns/pg/workers-0"]; got.AllocatedHyperNode != "" || got.MinAvailable != 3 {
		t.Errorf("policies changed: workers-0 %+v, want size 3 and its hypernode found again (Volcano drops it)", got)
	}
	job.UnsetPodGroup()
	if job.HasSubJobs() || job.SubJobOf(w0a.UID) != nil {
		t.Error("PodGroup deleted: sub-jobs remain")
	}
}

// subGroupedJob is a PodGroup of 1,000 pods in 100 sub-groups of 10,
// selected by label, as a large partitioned training job has them.
func subGroupedJob() *JobInfo {
	pg := &v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"}, Spec: v1beta1.PodGroupSpec{
		MinMember: 1000,
		SubGroupPolicy: []v1beta1.SubGroupPolicySpec{{Name: "workers", SubGroupSize: ptr.To[int32](10), MinSubGroups: ptr.To[int32](100),
			MatchLabelKeys: []string{"group"}, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}}},
	}}
	job := NewJobInfo("ns/pg")
	job.SetPodGroup(pg)
	for i := range 1000 {
		job.AddTaskInfo(subJobPod(strconv.Itoa(i), 0, map[string]string{"role": "worker", "group": strconv.Itoa(i / 10)}))
	}
	return job
}

// A placement made and undone in a session, as allocate's trials make
// them by the thousand.
func BenchmarkSubJobTaskStatus(b *testing.B) {
	job := subGroupedJob()
	tasks := make([]*TaskInfo, 0, len(job.Tasks))
	for _, t := range job.Tasks {
		tasks = append(tasks, t)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t := tasks[i%len(tasks)]
		job.UpdateTaskStatus(t, Allocated)
		job.UpdateTaskStatus(t, Pending)
	}
}

// The copy every session takes of every job.
func BenchmarkSubJobClone(b *testing.B) {
	job := subGroupedJob()
	b.ReportAllocs()
	for b.Loop() {
		job.Clone()
	}
}

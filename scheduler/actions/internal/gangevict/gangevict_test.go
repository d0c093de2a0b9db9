package gangevict

import (
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func cpu(milli float64) *api.Resource { return &api.Resource{MilliCPU: milli} }

func task(uid string, role string, prio int32, status api.TaskStatus) *api.TaskInfo {
	return &api.TaskInfo{UID: api.TaskID(uid), TaskRole: role, Priority: prio, Status: status,
		Resreq: cpu(1000), InitResreq: cpu(1000)}
}

func uids(tasks []*api.TaskInfo) string {
	var out []string
	for _, t := range tasks {
		out = append(out, string(t.UID))
	}
	return strings.Join(out, ",")
}

// Volcano's TestCreateJobBundles_SafeAndWhole: five ready workers over
// minAvailable 3 (and a worker minimum of 3) spare the two of lowest
// priority; the other three are a whole bundle costing the whole job.
func TestBundlesOfSpareBeyondMinimum(t *testing.T) {
	job := api.NewJobInfo("ns/j")
	job.MinAvailable, job.TaskMinAvailable, job.TaskMinAvailableTotal = 3, map[string]int32{"worker": 3}, 3
	var tasks []*api.TaskInfo
	for i, uid := range []string{"e", "d", "c", "b", "a"} {
		tk := task(uid, "worker", int32(4-i), api.Running)
		job.AddTaskInfo(tk)
		tasks = append(tasks, tk)
	}
	b := bundlesOf(job, tasks)
	if len(b) != 2 || b[0].kind != safe || uids(b[0].tasks) != "a,b" || b[1].kind != whole || uids(b[1].tasks) != "c,d,e" {
		t.Fatalf("bundles %+v", b)
	}
	if b[1].global.MilliCPU != 5000 || b[0].global.MilliCPU != 0 {
		t.Errorf("whole bundle costs %v, safe %v; want the job's 5 CPU and nothing", b[1].global.MilliCPU, b[0].global.MilliCPU)
	}
}

// A role at its minimum spares nothing even when the job has tasks to
// spare; a job already below minAvailable spares everything.
func TestBundlesOfRoleMinimumAndBrokenJob(t *testing.T) {
	job := api.NewJobInfo("ns/j")
	job.MinAvailable, job.TaskMinAvailable, job.TaskMinAvailableTotal = 2, map[string]int32{"ps": 1, "worker": 1}, 2
	ps, w1, w2 := task("ps", "ps", 0, api.Running), task("w1", "worker", 0, api.Running), task("w2", "worker", 0, api.Running)
	for _, tk := range []*api.TaskInfo{ps, w1, w2} {
		job.AddTaskInfo(tk)
	}
	b := bundlesOf(job, []*api.TaskInfo{ps, w1, w2})
	if len(b) != 2 || uids(b[0].tasks) != "w1" || uids(b[1].tasks) != "ps,w2" {
		t.Fatalf("bundles %+v", b)
	}
	job.MinAvailable = 4
	if b := bundlesOf(job, []*api.TaskInfo{ps, w1, w2}); len(b) != 1 || b[0].kind != safe || len(b[0].tasks) != 3 {
		t.Fatalf("broken job: bundles %+v", b)
	}
}

// subGroupJob is a job whose PodGroup groups its pods into sub-jobs of two
// by their "group" label, minSubGroups 2, with one running task per
// (group, priority) given.
func subGroupJob(minAvailable int32, tasks map[string]string) (*api.JobInfo, map[string]*api.TaskInfo) {
	job := api.NewJobInfo("ns/j")
	size, min := int32(2), int32(2)
	job.SetPodGroup(&v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"}, Spec: v1beta1.PodGroupSpec{
		MinMember:      minAvailable,
		SubGroupPolicy: []v1beta1.SubGroupPolicySpec{{Name: "g", SubGroupSize: &size, MinSubGroups: &min, MatchLabelKeys: []string{"group"}}},
	}})
	out := map[string]*api.TaskInfo{}
	prio := int32(0)
	for _, uid := range slices.Sorted(maps.Keys(tasks)) {
		tk := task(uid, "worker", prio, api.Running)
		tk.Pod = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"group": tasks[uid]}}}
		job.AddTaskInfo(tk)
		out[uid] = tk
		prio++
	}
	return job, out
}

// Volcano's TestCreateJobBundles_SubJobGroupSlackCapsSafe: three ready
// sub-jobs over minSubGroups 2 spare one, so only the lowest-priority
// task goes safe although the job could spare two.
func TestBundlesOfSubJobSlack(t *testing.T) {
	job, tk := subGroupJob(4, map[string]string{"t1a": "1", "t1b": "1", "t2a": "2", "t2b": "2", "t3a": "3", "t3b": "3"})
	b := bundlesOf(job, []*api.TaskInfo{tk["t1a"], tk["t2a"], tk["t3a"]})
	if len(b) != 2 || b[0].kind != safe || uids(b[0].tasks) != "t1a" || b[1].kind != whole || uids(b[1].tasks) != "t2a,t3a" {
		t.Fatalf("bundles %+v", b)
	}
}

// Volcano's TestCreateJobBundles_AlreadyBrokenSubJobIsSubjectToFurtherEviction:
// a sub-job already short of a task costs nothing more, so its task goes
// safe though the policy has no ready sub-job to spare.
func TestBundlesOfBrokenSubJob(t *testing.T) {
	job, tk := subGroupJob(3, map[string]string{"sj1a": "1", "sj2a": "2", "sj2b": "2", "sj3a": "3", "sj3b": "3"})
	b := bundlesOf(job, []*api.TaskInfo{tk["sj1a"], tk["sj2a"], tk["sj3a"]})
	if len(b) != 2 || b[0].kind != safe || uids(b[0].tasks) != "sj1a" || b[1].kind != whole || uids(b[1].tasks) != "sj2a,sj3a" {
		t.Fatalf("bundles %+v", b)
	}
}

// Volcano's TestApplyAllowedTasks_WholeAtomicAndSafeShrink.
func TestAllowedOnly(t *testing.T) {
	job := api.NewJobInfo("ns/j")
	t1, t2, t3 := task("t1", "", 0, api.Running), task("t2", "", 0, api.Running), task("t3", "", 0, api.Running)
	bundles := []*bundle{
		{kind: safe, job: job, tasks: []*api.TaskInfo{t1, t2}, local: cpu(2000), global: api.EmptyResource()},
		{kind: whole, job: job, tasks: []*api.TaskInfo{t3}, local: cpu(1000), global: cpu(3000)},
	}
	got := allowedOnly(bundles, []*api.TaskInfo{t1})
	if len(got) != 1 || got[0].kind != safe || uids(got[0].tasks) != "t1" || got[0].local.MilliCPU != 1000 {
		t.Fatalf("allowed %+v", got)
	}
}

// Volcano's TestSortBundlesForPreempt_TypePriorityAndROI,
// ..._UsesVictimJobOrder and TestSortBundlesForReclaim_DeterministicTieBreaker.
func TestSortBundles(t *testing.T) {
	low, high := &api.JobInfo{UID: "low", Priority: 1}, &api.JobInfo{UID: "high", Priority: 10}
	one := func(kind kind, job *api.JobInfo, uid string, global float64) *bundle {
		return &bundle{kind: kind, job: job, tasks: []*api.TaskInfo{task(uid, "", 0, api.Running)}, local: cpu(1000), global: cpu(global)}
	}
	byPriority := func(l, r *api.JobInfo) bool { return l.Priority < r.Priority }
	b := []*bundle{one(whole, low, "w1", 4000), one(safe, high, "s1", 0), one(whole, low, "w2", 2000)}
	sortBundles(b, cpu(1000), byPriority)
	if got := uids([]*api.TaskInfo{b[0].tasks[0], b[1].tasks[0], b[2].tasks[0]}); got != "s1,w2,w1" {
		t.Errorf("preempt order %s, want s1,w2,w1 (safe first, then the cheaper whole bundle)", got)
	}
	ja, jb := &api.JobInfo{UID: "ja"}, &api.JobInfo{UID: "jb"}
	b = []*bundle{one(whole, ja, "a", 2000), one(whole, jb, "b", 2000)}
	sortBundles(b, cpu(1000), func(l, r *api.JobInfo) bool { return l.UID > r.UID })
	if b[0].tasks[0].UID != "b" {
		t.Errorf("victim job order ignored: %s first", b[0].tasks[0].UID)
	}
	b = []*bundle{one(whole, jb, "b", 2000), one(whole, ja, "a", 2000)}
	sortBundles(b, cpu(1000), func(*api.JobInfo, *api.JobInfo) bool { return false })
	if b[0].tasks[0].UID != "a" {
		t.Errorf("tie not broken by job UID: %s first", b[0].tasks[0].UID)
	}
}

// Volcano's TestParseArguments and ..._InvalidMaxDomainsFallsBackToDefault;
// unknown keys are refused by name.
func TestReadArgs(t *testing.T) {
	a, err := ReadArgs(framework.Arguments{MaxDomainsKey: 3, AllowWholeBundleKey: false}, shared.DefaultNodeSearch())
	if err != nil || a.MaxDomains != 3 || a.AllowWholeBundle {
		t.Fatalf("args %+v, %v", a, err)
	}
	for _, v := range []int{0, -1} {
		if a, err := ReadArgs(framework.Arguments{MaxDomainsKey: v}, shared.DefaultNodeSearch()); err != nil || a.MaxDomains != 8 || !a.AllowWholeBundle {
			t.Errorf("maxDomains %d: args %+v, %v; want the defaults", v, a, err)
		}
	}
	if _, err := ReadArgs(framework.Arguments{"maxDomain": 3}, shared.DefaultNodeSearch()); err == nil || !strings.Contains(err.Error(), "maxDomain") {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := ReadArgs(framework.Arguments{AllowWholeBundleKey: "sometimes"}, shared.DefaultNodeSearch()); err == nil || !strings.Contains(err.Error(), AllowWholeBundleKey) {
		t.Errorf("bad bool: %v", err)
	}
}

package tasktopology

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// jobWithRoles is job default/job1 with one pod per role given and the
// PodGroup annotations given.
func jobWithRoles(anns map[string]string, roles ...string) *api.JobInfo {
	j := api.NewJobInfo("default/job1")
	j.Name, j.Namespace = "job1", "default"
	j.PodGroup = &v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Annotations: anns}}
	for i, r := range roles {
		id := api.TaskID(string(rune('a' + i)))
		j.Tasks[id] = &api.TaskInfo{UID: id, Name: "job1-" + r, TaskRole: r}
	}
	return j
}

// Volcano v1.15's task-topology/topology_test.go
// Test_readTopologyFromPgAnnotations, every case.
func TestReadTopology(t *testing.T) {
	tf := []string{"ps", "ps", "worker", "worker", "chief", "evaluator"}
	cases := []struct {
		name    string
		roles   []string
		anns    map[string]string
		want    *topology
		wantErr string
	}{
		{
			name:  "correct annotation",
			roles: tf,
			anns: map[string]string{
				AffinityAnnotation:     "ps,worker;ps,chief",
				AntiAffinityAnnotation: "ps;worker,chief",
				TaskOrderAnnotation:    "ps,worker,chief,evaluator",
			},
			want: &topology{
				affinity:     [][]string{{"ps", "worker"}, {"ps", "chief"}},
				antiAffinity: [][]string{{"ps"}, {"worker", "chief"}},
				taskOrder:    []string{"ps", "worker", "chief", "evaluator"},
			},
		},
		{
			name:  "correct annotation with tasks whose names contain `-`",
			roles: []string{"ps-some", "ps-some", "worker-another-some", "worker-another-some", "chief-kk", "evaluator-tt"},
			anns: map[string]string{
				AffinityAnnotation:     "ps-some,worker-another-some;ps-some,chief-kk",
				AntiAffinityAnnotation: "ps-some;worker-another-some,chief-kk",
				TaskOrderAnnotation:    "ps-some,worker-another-some,chief-kk,evaluator-tt",
			},
			want: &topology{
				affinity:     [][]string{{"ps-some", "worker-another-some"}, {"ps-some", "chief-kk"}},
				antiAffinity: [][]string{{"ps-some"}, {"worker-another-some", "chief-kk"}},
				taskOrder:    []string{"ps-some", "worker-another-some", "chief-kk", "evaluator-tt"},
			},
		},
		{name: "nil annotation"},
		{
			name:  "invalid annotation",
			roles: tf,
			anns: map[string]string{
				AffinityAnnotation:     "$%GF$^trtqwrg^",
				AntiAffinityAnnotation: "ps;worker,chief;#@FGEW^vfa897bgs;;",
				TaskOrderAnnotation:    "ps,worker,chief,evaluator,,,",
			},
			wantErr: `volcano.sh/task-topology-affinity: task "$%GF$^trtqwrg^" does not exist in job default/job1`,
		},
		{
			name:  "invalid task name",
			roles: []string{"ps", "ps", "worker", "worker"},
			anns: map[string]string{
				AffinityAnnotation:     "ps,worker",
				AntiAffinityAnnotation: "ps",
				TaskOrderAnnotation:    "ps,worker,chief",
			},
			wantErr: `volcano.sh/task-topology-task-order: task "chief" does not exist in job default/job1`,
		},
		{
			name:  "duplicate task name",
			roles: []string{"ps", "ps", "worker", "worker"},
			anns: map[string]string{
				AffinityAnnotation:     "ps,worker",
				AntiAffinityAnnotation: "ps,ps",
				TaskOrderAnnotation:    "ps,worker",
			},
			wantErr: `volcano.sh/task-topology-anti-affinity: task "ps" is named twice in one group of job default/job1`,
		},
		{
			name:  "redundant punctuations",
			roles: tf,
			anns: map[string]string{
				AffinityAnnotation:     "ps,worker;ps,,chief,;",
				AntiAffinityAnnotation: "ps;worker,chief;;;",
				TaskOrderAnnotation:    "ps,worker,chief,evaluator,,,",
			},
			want: &topology{
				affinity:     [][]string{{"ps", "worker"}, {"ps", "", "chief", ""}, {""}},
				antiAffinity: [][]string{{"ps"}, {"worker", "chief"}, {""}, {""}, {""}},
				taskOrder:    []string{"ps", "worker", "chief", "evaluator", "", "", ""},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readTopology(jobWithRoles(c.anns, c.roles...))
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				if got != nil {
					t.Fatalf("topology %+v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

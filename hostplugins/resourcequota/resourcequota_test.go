package resourcequota

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// podGroup is a Pending PodGroup of namespace default with the given
// minResources (none for nil).
func podGroup(name string, min v1.ResourceList) *v1beta1.PodGroup {
	pg := testutil.PodGroup("default", name, "c1", 2, v1beta1.PodGroupPending)
	if min != nil {
		pg.Spec.MinResources = &min
	}
	return pg
}

// The first four cases are Volcano v1.15's TestResourceQuotaPlugin
// (pkg/scheduler/plugins/resourcequota/resourcequota_test.go), with its
// quota "test" of 2 CPU and 2G; the last is this plugin's own: jobs
// admitted earlier in the session count against the quota.
func TestJobEnqueueable(t *testing.T) {
	normal := testutil.Res("cpu", "2000m", "memory", "2G")
	huge := testutil.Res("cpu", "20000m", "memory", "20G")
	quota := map[string]map[string]v1.ResourceQuotaStatus{"default": {"test": {Hard: normal}}}
	for _, tc := range []struct {
		name   string
		groups []*v1beta1.PodGroup
		quota  map[string]map[string]v1.ResourceQuotaStatus
		want   map[string]bool
		event  string
	}{
		{"ResourceQuota capacity can match the needs of this pg", []*v1beta1.PodGroup{podGroup("pg1", normal)}, quota, map[string]bool{"pg1": true}, ""},
		{"ResourceQuota capacity can't match the needs of this pg", []*v1beta1.PodGroup{podGroup("pg2", huge)}, quota, map[string]bool{"pg2": false},
			"default/pg2 Normal Unschedulable resource quota insufficient, requested: cpu 20, memory 20G, used: none, limited: cpu 2, memory 2G"},
		{"No ResourceQuota resource object", []*v1beta1.PodGroup{podGroup("pg2", huge)}, nil, map[string]bool{"pg2": true}, ""},
		{"MinResources field of pg is not set", []*v1beta1.PodGroup{podGroup("pg3", nil)}, quota, map[string]bool{"pg3": true}, ""},
		{"jobs admitted earlier in the session count", []*v1beta1.PodGroup{podGroup("a", testutil.Res("cpu", "1500m")), podGroup("b", testutil.Res("cpu", "1"))},
			map[string]map[string]v1.ResourceQuotaStatus{"default": {"test": {Hard: normal, Used: testutil.Res("cpu", "200m")}}},
			map[string]bool{"a": true, "b": false}, "default/b Normal Unschedulable resource quota insufficient, requested: cpu 1, used: cpu 200m, limited: cpu 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ci, err := testutil.Cluster{Queues: []*v1beta1.Queue{testutil.Queue("c1", 1)}, PodGroups: tc.groups}.Build()
			if err != nil {
				t.Fatal(err)
			}
			ci.QuotaStatus = tc.quota
			ssn, cache := testutil.OpenOn(t, ci, testutil.Registry(t, map[string]framework.Factory{Name: New}), "actions: enqueue\ntiers:\n- plugins:\n  - name: resourcequota\n")
			defer ssn.Close()
			for _, pg := range tc.groups {
				if got := ssn.JobEnqueueable(testutil.Job(t, ssn, "default/"+pg.Name)); got != tc.want[pg.Name] {
					t.Errorf("%s enqueueable = %v, want %v", pg.Name, got, tc.want[pg.Name])
				}
			}
			events := strings.Join(cache.Events, "\n")
			if tc.event == "" && events != "" || !strings.Contains(events, tc.event) {
				t.Errorf("events %q, want %q", events, tc.event)
			}
		})
	}
}

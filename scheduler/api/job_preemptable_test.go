package api

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

// volcano.sh/preemptable on a PodGroup, annotation before label and read
// by strconv.ParseBool: Preemptable defaults to false, EvictableByGang to
// true.
func TestPodGroupPreemptable(t *testing.T) {
	for _, c := range []struct {
		annotations, labels map[string]string
		preemptable, gang   bool
	}{
		{nil, nil, false, true},
		{map[string]string{PreemptableKey: "true"}, nil, true, true},
		{map[string]string{PreemptableKey: "false"}, map[string]string{PreemptableKey: "true"}, false, false},
		{nil, map[string]string{PreemptableKey: "1"}, true, true},
		{nil, map[string]string{PreemptableKey: "no"}, false, false},
	} {
		j := NewJobInfo("ns/pg")
		j.SetPodGroup(&v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg", Annotations: c.annotations, Labels: c.labels}})
		if j.Preemptable != c.preemptable || j.EvictableByGang() != c.gang {
			t.Errorf("annotations %v labels %v: Preemptable %v, EvictableByGang %v; want %v, %v", c.annotations, c.labels, j.Preemptable, j.EvictableByGang(), c.preemptable, c.gang)
		}
	}
	if !NewJobInfo("ns/none").EvictableByGang() {
		t.Error("a job without a PodGroup is not evictable by gang")
	}
}

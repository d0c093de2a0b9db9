package runtime

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// A task's rules reach the view parsed as kube-scheduler parses them:
// matchLabelKeys merged, the pod's namespace by default, a missing
// selector left out (matches nothing), an empty one kept (matches all),
// defaults filled in, images normalised, and errors in kube-scheduler's
// words with only the kinds that failed left out.
func TestWirePodRules(t *testing.T) {
	minDomains := int32(2)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Labels: map[string]string{"app": "db", "rev": "7"}},
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{{Image: "busybox"}},
			Containers:     []v1.Container{{Image: "registry:5000/db"}, {Image: "db:1.2"}},
			Affinity: &v1.Affinity{
				PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
					{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bogus"}}}, TopologyKey: "zone"},
				}},
				PodAntiAffinity: &v1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
						{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MatchLabelKeys: []string{"rev"}, TopologyKey: "kubernetes.io/hostname"},
					},
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
						{Weight: 5, PodAffinityTerm: v1.PodAffinityTerm{NamespaceSelector: &metav1.LabelSelector{}, Namespaces: []string{"b", "a"}, TopologyKey: "zone"}},
					},
				},
			},
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}, MinDomains: &minDomains},
				{MaxSkew: 2, TopologyKey: "rack", WhenUnsatisfiable: v1.ScheduleAnyway,
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "In"}}}},
			},
		},
	}
	var wt abi.Task
	wirePodRules(&wt, pod, nil)
	if want := []string{"busybox:latest", "registry:5000/db:latest", "db:1.2"}; !reflect.DeepEqual(wt.Images, want) {
		t.Errorf("images %q, want %q", wt.Images, want)
	}
	if wt.PodAffinity != nil || !strings.HasPrefix(wt.AffinityError, `requiredAffinityTerms: "Bogus" is not a valid label selector operator`) {
		t.Errorf("affinity %+v, error %q: want the failed kind left out and kube-scheduler's error", wt.PodAffinity, wt.AffinityError)
	}
	anti := wt.PodAntiAffinity
	wantRequired := abi.PodAffinityTerm{Selector: &abi.Selector{Requirements: []abi.NodeSelectorRequirement{
		{Key: "app", Operator: "In", Values: []string{"db"}}, {Key: "rev", Operator: "In", Values: []string{"7"}}}},
		Namespaces: []string{"ns"}, TopologyKey: "kubernetes.io/hostname"}
	if anti == nil || len(anti.Required) != 1 || !reflect.DeepEqual(anti.Required[0], wantRequired) {
		t.Fatalf("required anti-affinity %+v, want %+v", anti, wantRequired)
	}
	pref := anti.Preferred[0]
	if pref.Weight != 5 || pref.Term.Selector != nil || pref.Term.NamespaceSelector == nil ||
		len(pref.Term.NamespaceSelector.Requirements) != 0 || !reflect.DeepEqual(pref.Term.Namespaces, []string{"a", "b"}) {
		t.Errorf("preferred anti-affinity %+v: want no selector (matches nothing), an empty namespace selector, sorted namespaces", pref)
	}
	if len(wt.SpreadConstraints) != 2 {
		t.Fatalf("constraints %+v", wt.SpreadConstraints)
	}
	c := wt.SpreadConstraints[0]
	if c.MinDomains != 2 || c.NodeAffinityPolicy != "Honor" || c.NodeTaintsPolicy != "Ignore" || c.Selector == nil || len(c.Selector.Requirements) != 0 || c.Error != "" {
		t.Errorf("first constraint %+v", c)
	}
	if bad := wt.SpreadConstraints[1]; !strings.Contains(bad.Error, "for 'in', 'notin' operators, values set can't be empty") || bad.TopologyKey != "" || bad.WhenUnsatisfiable != "ScheduleAnyway" {
		t.Errorf("second constraint %+v: want kube-scheduler's error and its kind, nothing else", bad)
	}
}

// A pod without constraints of its own that a Service selects carries
// kube-scheduler's system defaults over the Service's selector, marked as
// defaulted; a pod with constraints keeps its own.
func TestWireSpreadDefaults(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Labels: map[string]string{"app": "web", "tier": "1"}}}
	w := &api.Workloads{Services: map[string][]map[string]string{"ns": {{"app": "web"}, {"app": "other"}}}}
	var wt abi.Task
	wirePodRules(&wt, pod, w.DefaultSelector(pod))
	sel := &abi.Selector{Requirements: []abi.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"web"}}}}
	want := []abi.SpreadConstraint{
		{MaxSkew: 3, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway", Selector: sel, MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"},
		{MaxSkew: 5, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "ScheduleAnyway", Selector: sel, MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"},
	}
	if !wt.SpreadDefaulted || !reflect.DeepEqual(wt.SpreadConstraints, want) {
		t.Errorf("defaulted %v, constraints %+v; want true and %+v", wt.SpreadDefaulted, wt.SpreadConstraints, want)
	}
}

// A node's Others are its pods that are not tasks of the view, and its
// encoding changes when a pod leaves or joins the view.
func TestNodeOthersLeaveOutViewTasks(t *testing.T) {
	mk := func(name string) *api.TaskInfo {
		return &api.TaskInfo{UID: api.TaskID(name), Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": name}}}}
	}
	n := &api.NodeInfo{Name: "n0", Node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n0"}},
		Tasks: map[api.TaskID]*api.TaskInfo{"b": mk("b"), "a": mk("a"), "mine": mk("mine")}}
	inView := map[api.TaskID]int32{"mine": 0}
	wn := wireNode(n, inView)
	if len(wn.Others) != 2 || wn.Others[0].Name != "a" || wn.Others[1].Name != "b" || wn.Others[0].Labels["app"] != "a" {
		t.Errorf("others %+v, want pods a and b in order", wn.Others)
	}
	if othersDigest(n, inView) == othersDigest(n, map[api.TaskID]int32{}) {
		t.Error("the digest does not change when a pod leaves the view")
	}
}

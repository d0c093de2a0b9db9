package main

import (
	"fmt"
	"net"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// shutdownGrace mirrors cmd/caldera/run.go: a stopping scheduler waits this
// many seconds for its binds, so the pod's grace period must be longer.
const shutdownGrace = 30

type report func(format string, args ...any)

func (m *manifests) check(runFlags map[string]bool) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	namespaces, seen := map[string]bool{}, map[string]bool{}
	for _, o := range m.objects {
		key := o.gvk.Kind + "/" + o.ns + "/" + o.name
		if seen[key] {
			add("%s: defined twice", o.source)
		}
		seen[key] = true
		if o.gvk.Kind == "Namespace" {
			namespaces[o.name] = true
		}
	}
	for _, o := range m.objects {
		if o.ns != "" && !namespaces[o.ns] {
			add("%s: namespace %s is not created by these manifests", o.source, o.ns)
		}
	}
	m.checkCRDs(add)
	deployments := all[*appsv1.Deployment](m)
	if len(deployments) == 0 {
		add("no Deployment")
	}
	for _, d := range deployments {
		m.checkDeployment(d, runFlags, add)
	}
	return errs
}

// checkCRDs requires, when CRDs are given, Volcano's PodGroup and Queue.
func (m *manifests) checkCRDs(add report) {
	plurals := map[string]bool{}
	for _, o := range m.objects {
		if o.crd != nil {
			plurals[o.crd.Spec.Group+"/"+o.crd.Spec.Names.Plural] = true
		}
	}
	if len(plurals) == 0 {
		return
	}
	for _, want := range []string{"scheduling.volcano.sh/podgroups", "scheduling.volcano.sh/queues"} {
		if !plurals[want] {
			add("no CustomResourceDefinition for %s", want)
		}
	}
}

func (m *manifests) checkDeployment(d *appsv1.Deployment, runFlags map[string]bool, add report) {
	where := "Deployment " + d.Name
	pod := d.Spec.Template
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		add("%s: spec.selector does not select its own pod template", where)
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g <= shutdownGrace {
		add("%s: terminationGracePeriodSeconds must exceed the scheduler's %d s wait for binds", where, shutdownGrace)
	}
	for _, pdb := range all[*policyv1.PodDisruptionBudget](m) {
		if pdb.Namespace != d.Namespace {
			continue
		}
		if sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			add("PodDisruptionBudget %s: selector does not select %s's pods", pdb.Name, where)
		}
	}
	for _, svc := range all[*corev1.Service](m) {
		if svc.Namespace == d.Namespace && !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			add("Service %s: selector does not select %s's pods", svc.Name, where)
		}
	}
	m.checkServiceAccount(d, add)
	ran := false
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if len(c.Args) == 0 || c.Args[0] != "run" {
			continue
		}
		ran = true
		flags := runArgs(c.Args[1:], runFlags, where, add)
		m.checkConfig(d, c, flags["scheduler-conf"], add)
		checkPorts(c, flags, where, add)
		if v, ok := flags["leader-elect"]; ok && (v == "" || v == "true") {
			m.checkLease(d, flags, add)
		}
	}
	if !ran {
		add("%s: no container runs `caldera run` (args starting with run)", where)
	}
}

// runArgs returns the --name=value arguments by name, reporting unknown
// flags.
func runArgs(args []string, known map[string]bool, where string, add report) map[string]string {
	flags := map[string]string{}
	for _, a := range args {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !known[name] {
			add("%s: argument %q is not a flag of caldera run (write --name=value)", where, a)
			continue
		}
		flags[name] = value
	}
	return flags
}

// checkConfig finds the scheduler configuration in a mounted ConfigMap and
// loads it with the native registries, as `caldera run` does at start.
func (m *manifests) checkConfig(d *appsv1.Deployment, c *corev1.Container, file string, add report) {
	where := "Deployment " + d.Name
	if file == "" {
		return // the built-in default
	}
	dir, key := path.Split(file)
	var volume string
	for _, vm := range c.VolumeMounts {
		if path.Clean(vm.MountPath) == path.Clean(dir) {
			volume = vm.Name
		}
	}
	var cmName string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == volume && v.ConfigMap != nil && len(v.ConfigMap.Items) == 0 {
			cmName = v.ConfigMap.Name
		}
	}
	if cmName == "" {
		add("%s: --scheduler-conf=%s: no ConfigMap volume (without items) is mounted at %s", where, file, dir)
		return
	}
	for _, cm := range all[*corev1.ConfigMap](m) {
		if cm.Namespace != d.Namespace || cm.Name != cmName {
			continue
		}
		data, ok := cm.Data[key]
		if !ok {
			add("%s: --scheduler-conf=%s: ConfigMap %s has no key %s", where, file, cmName, key)
			return
		}
		v := framework.Validator{Plugins: hostplugins.Registry(), Actions: actions.Registry()}
		if _, err := conf.Parse([]byte(data), "ConfigMap "+cmName+" key "+key, v); err != nil {
			add("%v", err)
		}
		return
	}
	add("%s: ConfigMap %s/%s is not in these manifests", where, d.Namespace, cmName)
}

// checkPorts requires a container port for each address flag and probes on
// the health port's /healthz and /readyz.
func checkPorts(c *corev1.Container, flags map[string]string, where string, add report) {
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	portOf := func(flag, def string) string {
		addr, ok := flags[flag]
		if !ok {
			addr = def
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil && addr != "" {
			add("%s: --%s=%s: %v", where, flag, addr, err)
		}
		return port
	}
	declared := func(port string) bool {
		for _, p := range c.Ports {
			if fmt.Sprint(p.ContainerPort) == port {
				return true
			}
		}
		return false
	}
	// Defaults from cmd/caldera/run.go.
	for flag, def := range map[string]string{"listen-address": ":8080", "healthz-address": ":11251"} {
		if port := portOf(flag, def); port != "" && !declared(port) {
			add("%s: --%s listens on %s, which is not a containerPort", where, flag, port)
		}
	}
	health := portOf("healthz-address", ":11251")
	probes := []struct {
		kind  string
		probe *corev1.Probe
		want  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}}
	for _, p := range probes {
		probe, want := p.probe, p.want
		if probe == nil || probe.HTTPGet == nil {
			add("%s: expected an HTTP %s probe on %s", where, p.kind, want)
			continue
		}
		port := probe.HTTPGet.Port.String()
		if n, ok := ports[port]; ok {
			port = fmt.Sprint(n)
		}
		if probe.HTTPGet.Path != want || port != health {
			add("%s: %s probe %s on port %s; expected %s on the --healthz-address port %s", where, p.kind, probe.HTTPGet.Path, port, want, health)
		}
	}
}

// checkServiceAccount requires the pod's service account and a
// ClusterRoleBinding of it to a ClusterRole in these manifests.
func (m *manifests) checkServiceAccount(d *appsv1.Deployment, add report) {
	sa := d.Spec.Template.Spec.ServiceAccountName
	where := "Deployment " + d.Name
	if !m.has("ServiceAccount", d.Namespace, sa) {
		add("%s: ServiceAccount %s/%s is not in these manifests", where, d.Namespace, sa)
	}
	for _, b := range all[*rbacv1.ClusterRoleBinding](m) {
		if bindsServiceAccount(b.Subjects, d.Namespace, sa) && b.RoleRef.Kind == "ClusterRole" && m.has("ClusterRole", "", b.RoleRef.Name) {
			return
		}
	}
	add("%s: no ClusterRoleBinding binds ServiceAccount %s to a ClusterRole in these manifests", where, sa)
}

// checkLease requires a Role in the Lease's namespace that lets the pod's
// service account get, create and update the Lease.
func (m *manifests) checkLease(d *appsv1.Deployment, flags map[string]string, add report) {
	where := "Deployment " + d.Name
	ns := flags["leader-elect-resource-namespace"]
	if ns == "" {
		ns = flags["lock-object-namespace"]
	}
	if ns == "" {
		add("%s: --leader-elect without --lock-object-namespace uses volcano-system; name the Lease namespace explicitly", where)
		return
	}
	name := flags["leader-elect-resource-name"]
	if name == "" {
		name = "caldera" // cmd/caldera/leader.go
	}
	granted := map[string]bool{}
	for _, b := range all[*rbacv1.RoleBinding](m) {
		if b.Namespace != ns || b.RoleRef.Kind != "Role" || !bindsServiceAccount(b.Subjects, d.Namespace, d.Spec.Template.Spec.ServiceAccountName) {
			continue
		}
		for _, r := range all[*rbacv1.Role](m) {
			if r.Namespace == ns && r.Name == b.RoleRef.Name {
				for _, rule := range r.Rules {
					if contains(rule.APIGroups, "coordination.k8s.io") && contains(rule.Resources, "leases") &&
						(len(rule.ResourceNames) == 0 || contains(rule.ResourceNames, name)) {
						for _, v := range rule.Verbs {
							granted[v] = true
						}
					}
				}
			}
		}
	}
	for _, v := range []string{"get", "create", "update"} {
		if !granted[v] {
			add("%s: no Role bound in namespace %s grants %s on Lease %s", where, ns, v, name)
		}
	}
}

func bindsServiceAccount(subjects []rbacv1.Subject, ns, name string) bool {
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == ns && s.Name == name {
			return true
		}
	}
	return false
}

func (m *manifests) has(kind, ns, name string) bool {
	for _, o := range m.objects {
		if o.gvk.Kind == kind && o.ns == ns && o.name == name {
			return true
		}
	}
	return false
}

// all returns the decoded objects of one type.
func all[T runtime.Object](m *manifests) []T {
	var out []T
	for _, o := range m.objects {
		if t, ok := o.obj.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s || x == "*" {
			return true
		}
	}
	return false
}

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
)

// registryConf is hotReloadConf with plugin "policy" named by image.
func registryConf(image, extra string) []byte {
	return []byte(strings.Replace(hotReloadConf, "{name: policy}", `{name: policy, arguments: {wasm.image: "`+image+`"`+extra+`}}`, 1))
}

// TestModulesFromAnOCIRegistry: modules pushed with `caldera plugin push`
// to the distribution project's registry (TLS with a private CA, basic
// auth from a dockerconfigjson) are named by digest in a ConfigMap volume.
// The TinyGo draining module keeps pods off the draining node; swapping to
// the Go-toolchain binpack module's digest places them there, in the same
// process. With the registry stopped, a digest never pulled is refused
// (Warning Event) and a wasm.sha256 the cached module does not match is
// refused, while binpack keeps serving; a restarted scheduler serves it
// from the cache.
func TestModulesFromAnOCIRegistry(t *testing.T) {
	draining, binpack := builtModule(t, "draining.tinygo"), builtModule(t, "binpack.go")
	builtModule(t, "draining.go")
	tc := harness.NewTest(t)
	caldera, err := tc.Cluster().CalderaBinary()
	if err != nil {
		t.Fatal(err)
	}
	reg := tc.StartRegistry()
	flags := []string{"--registry-config=" + reg.CredentialsFile, "--registry-ca-file=" + reg.CAFile}
	push := func(module, tag string) string {
		t.Helper()
		args := append([]string{"plugin", "push"}, flags...)
		args = append(args, filepath.Join("..", "build", "plugins", module+".wasm"), reg.Host+"/policies/placement:"+tag)
		out, err := exec.Command(caldera, args...).CombinedOutput()
		m := regexp.MustCompile(`(?m)^image: +(\S+@sha256:[0-9a-f]{64})$`).FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("caldera plugin push %s: %v\n%s", module, err, out)
		}
		return string(m[1])
	}
	drainingImage, binpackImage, otherImage := push("draining.tinygo", "draining"), push("binpack.go", "binpack"), push("draining.go", "draining-go")
	pulled := filepath.Join(t.TempDir(), "pulled.wasm")
	if out, err := exec.Command(caldera, append(append([]string{"plugin", "pull"}, flags...), "-o", pulled, reg.Host+"/policies/placement:draining")...).CombinedOutput(); err != nil {
		t.Fatalf("caldera plugin pull: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(pulled); string(b) != string(draining) {
		t.Fatal("caldera plugin pull fetched other bytes than were pushed")
	}

	nodes := tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.UpdateNode(nodes[0], func(n *v1.Node) { n.Annotations["caldera.sh/draining"] = "true" })
	volume := reloadtest.NewConfigMapVolume(t, t.TempDir())
	conf := filepath.Join(volume.Dir(), "volcano-scheduler.conf")
	volume.Update(map[string][]byte{"volcano-scheduler.conf": registryConf(drainingImage, "")})
	const podName = "caldera-registry"
	t.Setenv("POD_NAME", podName)
	t.Setenv("POD_NAMESPACE", tc.Namespace)
	args := append([]string{"--scheduler-conf=" + conf, "--wasm-cache-dir=" + t.TempDir()}, flags...)
	s := tc.StartScheduler(args...)
	pid := s.Pid()
	waitMetric(t, s, `caldera_module_pulls_total{plugin="policy",result="registry"} 1`)

	tc.CreatePods(harness.Pods{Prefix: "oci", Count: 6, CPU: "1"})
	waitPods(t, tc, "oci", 4, harness.Bound, "bound")
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		n := tc.CountPods("oci", harness.Bound)
		return n == 4, fmt.Sprintf("%d of 6 pods bound under the draining module, want 4", n)
	})

	volume.Update(map[string][]byte{"volcano-scheduler.conf": registryConf(binpackImage, "")})
	waitPods(t, tc, "oci", 6, harness.Bound, "bound")
	onDrained := 0
	for _, p := range tc.ListPods("oci") {
		if p.Spec.NodeName == nodes[0] {
			onDrained++
		}
	}
	if onDrained != 2 || s.Exited() || s.Pid() != pid {
		t.Fatalf("%d pods on %s after the swap (want 2), scheduler exited %v: the swap must place them, in the running process", onDrained, nodes[0], s.Exited())
	}
	waitReloadEvent(t, tc, podName, "PolicyReloaded", "plugin policy sha256 "+sha(draining)[:12]+" -> "+sha(binpack)[:12])
	if n := s.LogLines(`"Reloaded Wasm plugin" plugin="policy" file="` + binpackImage + `"`); n != 1 {
		t.Errorf("%d log lines reloading plugin policy from %s, want 1", n, binpackImage)
	}

	if err := reg.Stop(); err != nil {
		t.Fatal(err)
	}
	volume.Update(map[string][]byte{"volcano-scheduler.conf": registryConf(otherImage, "")})
	waitReloadEvent(t, tc, podName, "PolicyReloadFailed", "plugin policy: wasm.image: pulling "+otherImage)
	harness.Eventually(t, timeout, func() (bool, string) {
		n := s.LogLines("A registry did not answer; the reload is tried again")
		return n >= 2, fmt.Sprintf("%d retries scheduled, want at least 2", n)
	})
	volume.Update(map[string][]byte{"volcano-scheduler.conf": registryConf(binpackImage, ", wasm.sha256: "+sha(draining))})
	waitReloadEvent(t, tc, podName, "PolicyReloadFailed", "module digest is sha256:"+sha(binpack)+", the configuration pins sha256:"+sha(draining))
	tc.CreatePods(harness.Pods{Prefix: "late", Count: 1, CPU: "1"})
	waitPods(t, tc, "late", 1, harness.Bound, "bound on the draining node by binpack, still serving")

	volume.Update(map[string][]byte{"volcano-scheduler.conf": registryConf(binpackImage, "")})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s = tc.StartScheduler(args...)
	waitMetric(t, s, `caldera_module_pulls_total{plugin="policy",result="cache"} 1`)
	if n := s.LogLines(`"Loaded Wasm plugin" plugin="policy" file="` + binpackImage + `"`); n != 1 {
		t.Errorf("the restarted scheduler logged %d loads of %s, want 1", n, binpackImage)
	}
	tc.CreatePods(harness.Pods{Prefix: "after", Count: 1, CPU: "1"})
	waitPods(t, tc, "after", 1, harness.Bound, "bound after a restart with the registry stopped")
}

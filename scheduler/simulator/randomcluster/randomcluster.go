// Package randomcluster writes random but valid cluster manifests for the
// simulator: mixed node shapes with GPUs, taints and labels; gangs in three
// queues with priorities, tolerations, preferred affinity and node
// selectors; some pods already running. Tests use them to check properties
// that must hold on any cluster (runs are reproducible, a Wasm port decides
// as its native plugin does) rather than one hand-written case.
package randomcluster

import (
	"fmt"
	"math/rand"
	"strings"
)

// Generate returns a multi-document manifest; the same seed gives the same
// text.
func Generate(seed int64) []byte { return generate(seed, 20, 80, 15, 60) }

// GenerateLarge is Generate with 150 to 400 nodes and 100 to 300 jobs: more
// than the 100 nodes below which a search looks at every node, so searches
// stop part-way round the cluster as they do on large ones.
func GenerateLarge(seed int64) []byte { return generate(seed, 150, 250, 100, 200) }

func generate(seed int64, minNodes, moreNodes, minJobs, moreJobs int) []byte {
	g := &generator{rng: rand.New(rand.NewSource(seed))}
	g.queues()
	nodes := minNodes + g.rng.Intn(moreNodes)
	for i := 0; i < nodes; i++ {
		g.node(i)
	}
	jobs := minJobs + g.rng.Intn(moreJobs)
	for j := 0; j < jobs; j++ {
		g.job(j, nodes)
	}
	return []byte(strings.Join(g.docs, "---\n"))
}

type generator struct {
	rng  *rand.Rand
	docs []string
}

func (g *generator) add(format string, args ...any) {
	g.docs = append(g.docs, fmt.Sprintf(format, args...))
}

func (g *generator) pick(options ...string) string { return options[g.rng.Intn(len(options))] }

func (g *generator) queues() {
	for i, q := range []string{"default", "research", "prod"} {
		g.add("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: %s}\nspec: {weight: %d, reclaimable: true}\n", q, i+1)
	}
	g.add("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n")
}

func (g *generator) node(i int) {
	cpu, mem, pods := g.pick("4", "8", "16", "32"), g.pick("8Gi", "16Gi", "32Gi", "64Gi"), g.pick("10", "20", "110")
	gpu := ""
	if n := g.pick("0", "0", "0", "2", "4", "8"); n != "0" {
		gpu = fmt.Sprintf(", nvidia.com/gpu: '%s'", n)
	}
	spec := "spec: {}"
	switch r := g.rng.Float64(); {
	case r < 0.15:
		spec = "spec:\n  taints: [{key: spot, value: 'true', effect: NoSchedule}]"
	case r < 0.25:
		spec = "spec:\n  taints: [{key: shared, value: 'yes', effect: PreferNoSchedule}]"
	}
	g.add(`apiVersion: v1
kind: Node
metadata: {name: n%03d, labels: {zone: z%d, kubernetes.io/hostname: n%03d}}
%s
status:
  allocatable: {cpu: '%s', memory: %s, pods: '%s'%s}
  capacity: {cpu: '%s', memory: %s, pods: '%s'%s}
`, i, i%3, i, spec, cpu, mem, pods, gpu, cpu, mem, pods, gpu)
}

func (g *generator) job(j, nodes int) {
	queue := g.pick("default", "research", "prod")
	size := 1 + g.rng.Intn(8)
	minMember := 1 + g.rng.Intn(size)
	g.add("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: j%03d, namespace: default}\nspec: {minMember: %d, queue: %s}\n",
		j, minMember, queue)
	requests := fmt.Sprintf("cpu: '%s', memory: %s", g.pick("500m", "1", "2", "3", "4"), g.pick("1Gi", "2Gi", "4Gi", "8Gi"))
	if n := g.pick("0", "0", "0", "1", "2"); n != "0" {
		requests += fmt.Sprintf(", nvidia.com/gpu: '%s'", n)
	}
	var extra strings.Builder
	if g.rng.Float64() < 0.2 {
		extra.WriteString("  priorityClassName: high\n")
	}
	if g.rng.Float64() < 0.3 {
		extra.WriteString("  tolerations: [{key: spot, operator: Exists}]\n")
	}
	switch r := g.rng.Float64(); {
	case r < 0.25:
		fmt.Fprintf(&extra, "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: %d, preference: {matchExpressions: [{key: zone, operator: In, values: [z%d]}]}}]}}\n",
			1+g.rng.Intn(50), g.rng.Intn(3))
	case r < 0.35:
		fmt.Fprintf(&extra, "  nodeSelector: {zone: z%d}\n", g.rng.Intn(3))
	}
	for p := 0; p < size; p++ {
		placement, phase := "", "Pending"
		if g.rng.Float64() < 0.15 {
			placement, phase = fmt.Sprintf("  nodeName: n%03d\n", g.rng.Intn(nodes)), "Running"
		}
		g.add(`apiVersion: v1
kind: Pod
metadata: {name: j%03d-%d, namespace: default, annotations: {scheduling.k8s.io/group-name: j%03d}}
spec:
  schedulerName: volcano
%s%s  containers: [{name: c, image: x, resources: {requests: {%s}}}]
status: {phase: %s}
`, j, p, j, extra.String(), placement, requests, phase)
	}
}

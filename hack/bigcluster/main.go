// Command bigcluster writes the manifests of a large cluster for `caldera
// simulate`: the session benchmarks' workload (benchmarks/workload.go) as a
// file, so that the whole process can be timed on it (docs/performance.md,
// "caldera simulate as a whole process").
//
//	go run ./hack/bigcluster -nodes 5000 -gangs 1000 > /tmp/cluster-5k.yaml
//
// Identical nodes of 32 CPU, 128Gi and 110 pods; one queue; gangs of ten
// pending pods of 1 CPU and 2Gi whose PodGroups are Pending with their
// minimum resources.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	nodes := flag.Int("nodes", 5000, "nodes")
	gangs := flag.Int("gangs", 1000, "gangs of ten pods")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprint(w, `apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1}
status: {state: Open}
`)
	for i := range *nodes {
		fmt.Fprintf(w, `---
apiVersion: v1
kind: Node
metadata: {name: n%05d}
status:
  capacity: {cpu: "32", memory: 128Gi, pods: "110"}
  allocatable: {cpu: "32", memory: 128Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
`, i)
	}
	for g := range *gangs {
		fmt.Fprintf(w, `---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg%05d, namespace: ns}
spec: {minMember: 10, queue: default, minResources: {cpu: "10", memory: 20Gi}}
status: {phase: Pending}
`, g)
		for k := range 10 {
			fmt.Fprintf(w, `---
apiVersion: v1
kind: Pod
metadata:
  name: pg%05d-%d
  namespace: ns
  annotations: {scheduling.k8s.io/group-name: pg%05d}
spec:
  schedulerName: volcano
  containers:
  - name: main
    image: registry.k8s.io/pause:3.9
    resources: {requests: {cpu: "1", memory: 2Gi}}
status: {phase: Pending}
`, g, k, g)
		}
	}
}

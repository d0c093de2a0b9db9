package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// NodeUsageAnnotation gives a node's usage in the simulator, where no
// metrics source is asked: a JSON object of percentages, the CPU and the
// memory in use averaged over api.UsagePeriod, such as
// {"cpu": 85, "memory": 40}. It counts as measured at the start of every
// session, or, with "age" (a Go duration such as "6m"), that long before
// it, so that the usage plugin's rule for old measures can be tried.
const NodeUsageAnnotation = "caldera.sh/node-usage"

// annotatedUsage is the annotation's value; cpu and memory are required.
type annotatedUsage struct {
	CPU    *float64 `json:"cpu"`
	Memory *float64 `json:"memory"`
	Age    string   `json:"age"`
}

// nodeUsageAnnotation reads a node's annotation; ok is false when the
// node has none.
func nodeUsageAnnotation(node *v1.Node) (cpu, memory float64, age time.Duration, ok bool, err error) {
	text, ok := node.Annotations[NodeUsageAnnotation]
	if !ok {
		return 0, 0, 0, false, nil
	}
	fail := func(why string) error {
		return fmt.Errorf("metadata.annotations[%s]: %s; expected a JSON object such as {\"cpu\": 85, \"memory\": 40} (percentages; an \"age\" such as \"6m\" may follow), got %q", NodeUsageAnnotation, why, text)
	}
	var u annotatedUsage
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		return 0, 0, 0, true, fail(err.Error())
	}
	if dec.More() {
		return 0, 0, 0, true, fail("more than one JSON value")
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"cpu", u.CPU}, {"memory", u.Memory}} {
		if f.v == nil {
			return 0, 0, 0, true, fail(fmt.Sprintf("%q is missing", f.key))
		}
		if *f.v < 0 || *f.v > 100 {
			return 0, 0, 0, true, fail(fmt.Sprintf("%q is %v, not a percentage from 0 to 100", f.key, *f.v))
		}
	}
	if u.Age != "" {
		if age, err = time.ParseDuration(u.Age); err != nil || age < 0 {
			return 0, 0, 0, true, fail(fmt.Sprintf("\"age\" is %q, not a duration of at least 0 such as \"6m\"", u.Age))
		}
	}
	return *u.CPU, *u.Memory, age, true, nil
}

// nodeUsage returns the usage the nodes' annotations give, measured at at;
// nil when no node has one. ParseCluster has checked every annotation.
func (c *Cluster) nodeUsage(at time.Time) map[string]*api.NodeUsage {
	var out map[string]*api.NodeUsage
	for _, n := range c.Nodes {
		cpu, mem, age, ok, err := nodeUsageAnnotation(n)
		if !ok || err != nil {
			continue
		}
		if out == nil {
			out = map[string]*api.NodeUsage{}
		}
		out[n.Name] = api.NewNodeUsage(at.Add(-age), cpu, mem)
	}
	return out
}

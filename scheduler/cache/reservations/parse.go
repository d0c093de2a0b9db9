package reservations

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// parse reads JSON lines into the resources reserved per node.
func parse(data []byte) (map[string]v1.ResourceList, error) {
	out := map[string]v1.ResourceList{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		node, list, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		sum := out[node]
		if sum == nil {
			sum = v1.ResourceList{}
			out[node] = sum
		}
		for name, q := range list {
			cur := sum[name]
			cur.Add(q)
			sum[name] = cur
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func parseLine(text []byte) (string, v1.ResourceList, error) {
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %w", err)
	}
	node, ok := fields["node"].(string)
	if !ok || node == "" {
		return "", nil, fmt.Errorf(`"node" must name a node`)
	}
	delete(fields, "node")
	if len(fields) == 0 {
		return "", nil, fmt.Errorf("node %s: no resources", node)
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	list := v1.ResourceList{}
	for _, name := range names {
		var text string
		switch v := fields[name].(type) {
		case string:
			text = v
		case json.Number:
			text = v.String()
		default:
			return "", nil, fmt.Errorf("node %s: %s must be a quantity such as \"4\" or \"8Gi\", got %v", node, name, v)
		}
		q, err := resource.ParseQuantity(text)
		if err != nil {
			return "", nil, fmt.Errorf("node %s: %s: %q is not a quantity: %w", node, name, text, err)
		}
		if q.Sign() < 0 {
			return "", nil, fmt.Errorf("node %s: %s is negative (%s)", node, name, text)
		}
		list[v1.ResourceName(name)] = q
	}
	return node, list, nil
}

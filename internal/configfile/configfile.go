// Package configfile reads Caldera's configuration files (the scheduler
// configuration and --event-handler-config) and the JSON sections inside
// them that handlers and informers decode, all by one set of rules:
//
//   - a file holds one YAML document; a second one is refused, not skipped;
//   - no mapping, at any depth, gives a key twice (the file and line of
//     both are named), since a reader keeping the first, the last or both
//     would run a configuration its author did not write;
//   - an empty file, a file of comments, a document that is only null, and
//     an absent, empty or null section all mean "nothing given": the
//     reader's defaults, or its error when something is required;
//   - a section's unknown fields, keys that match a field only when case is
//     ignored, and anything after its value, are errors.
package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Document parses the text of a configuration file and returns its root
// node, or nil when the file gives nothing (see the package comment).
// Errors read "source: ..." or "source:line: key: ...".
func Document(data []byte, source string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: invalid YAML: %v", source, err)
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, fmt.Errorf("%s: invalid YAML: %v", source, err)
	default:
		return nil, fmt.Errorf("%s:%d: a second YAML document: a configuration file holds one", source, second.Line)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	budget := maxValues
	if err := expandAliases(root, source, &budget, 0); err != nil {
		return nil, err
	}
	if err := uniqueKeys(root, "", source); err != nil {
		return nil, err
	}
	return root, nil
}

// maxValues bounds the values a document holds once its aliases are
// expanded, so that aliases of aliases cannot grow a small file without
// limit ("billion laughs"); maxDepth bounds their nesting (an alias
// inside its own anchor would otherwise nest forever).
const (
	maxValues = 1 << 20
	maxDepth  = 1000
)

// expandAliases puts each alias's anchored node in its place, so that
// readers walking the document see the values the author meant.
func expandAliases(n *yaml.Node, source string, budget *int, depth int) error {
	if *budget--; *budget < 0 {
		return Errorf(source, n, "the document", "expands to more than %d values through its aliases", maxValues)
	}
	if depth > maxDepth {
		return Errorf(source, n, "the document", "nests more than %d levels deep", maxDepth)
	}
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			n.Content[i] = c.Alias
		}
		if err := expandAliases(n.Content[i], source, budget, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// Errorf formats an error at a node: "source:line: key: message".
func Errorf(source string, n *yaml.Node, key, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", source, n.Line, key, fmt.Sprintf(format, args...))
}

func uniqueKeys(n *yaml.Node, path, source string) error {
	switch n.Kind {
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			where := strings.TrimPrefix(path+"."+key.Value, ".")
			if line, ok := first[key.Value]; ok {
				return Errorf(source, key, where, "given twice (first on line %d)", line)
			}
			first[key.Value] = key.Line
			if err := uniqueKeys(n.Content[i+1], where, source); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := uniqueKeys(c, fmt.Sprintf("%s[%d]", path, i), source); err != nil {
				return err
			}
		}
	}
	return nil
}

// JSON converts a node to JSON, the form in which sections reach the code
// that decodes them with its own types. A nil node is JSON null. Aliases
// are expanded (Document has bounded them); mapping keys must be scalars; a timestamp or binary
// scalar stays the string it was written as.
func JSON(n *yaml.Node, source string) (json.RawMessage, error) {
	if n == nil {
		return json.RawMessage("null"), nil
	}
	v, err := converter{source: source}.value(n, "")
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	return out, nil
}

type converter struct{ source string }

func (c converter) value(n *yaml.Node, path string) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], path)
	case yaml.AliasNode:
		return c.value(n.Alias, path)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind != yaml.ScalarNode {
				return nil, Errorf(c.source, key, where(path), "a mapping key must be a plain value, not a list or mapping")
			}
			v, err := c.value(n.Content[i+1], strings.TrimPrefix(path+"."+key.Value, "."))
			if err != nil {
				return nil, err
			}
			m[key.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			v, err := c.value(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, Errorf(c.source, n, where(path), "%v", err)
		}
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return nil, Errorf(c.source, n, where(path), "%s is not a finite number", n.Value)
		}
		return v, nil
	}
	return n.Value, nil
}

func where(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// Section decodes a JSON section into out, whose fields hold its defaults.
// It reports whether the section gave anything: an absent, empty or null
// section leaves out as it was and reports false.
func Section(raw json.RawMessage, out any) (bool, error) {
	if !Given(raw) {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return true, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return true, fmt.Errorf("more than one value")
	}
	return true, exactKeys(raw, reflect.TypeOf(out), "")
}

// Given reports whether a section gives anything.
func Given(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

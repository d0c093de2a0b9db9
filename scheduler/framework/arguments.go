package framework

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Arguments are a tier entry's or an action's arguments as written in the
// configuration. The typed getters leave the destination untouched when the
// key is absent and return an error naming the key and the expected type when
// the value does not fit, so that no setting is silently ignored.
type Arguments map[string]any

func typeErr(key, want string, v any) error {
	return fmt.Errorf("argument %q: expected %s, got %T %v", key, want, v, v)
}

func rangeErr(key string, v any) error {
	return fmt.Errorf("argument %q: %v is out of range: expected an integer from %d to %d", key, v, int64(math.MinInt64), int64(math.MaxInt64))
}

// Int reads an integer. Whole-number floats and numeric strings are accepted,
// as Volcano accepts them.
func (a Arguments) Int(key string, dst *int) error {
	v, ok := a[key]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case int:
		*dst = x
	case int64:
		*dst = int(x)
	case uint64:
		if x > math.MaxInt64 {
			return rangeErr(key, v)
		}
		*dst = int(x)
	case float64:
		if x != math.Trunc(x) {
			return typeErr(key, "an integer", v)
		}
		// A float of this magnitude (1e300, -1e21, .inf, or an integer
		// too long for int64, which YAML reads as a float) would wrap.
		if !(x >= math.MinInt64 && x < math.MaxInt64) {
			return rangeErr(key, v)
		}
		*dst = int(x)
	case string:
		n, err := strconv.Atoi(x)
		if err != nil {
			return typeErr(key, "an integer", v)
		}
		*dst = n
	default:
		return typeErr(key, "an integer", v)
	}
	return nil
}

// Float64 reads a number.
func (a Arguments) Float64(key string, dst *float64) error {
	v, ok := a[key]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case int:
		*dst = float64(x)
	case int64:
		*dst = float64(x)
	case uint64:
		*dst = float64(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return typeErr(key, "a finite number", v)
		}
		*dst = x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return typeErr(key, "a finite number", v)
		}
		*dst = f
	default:
		return typeErr(key, "a number", v)
	}
	return nil
}

// Bool reads true or false.
func (a Arguments) Bool(key string, dst *bool) error {
	v, ok := a[key]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case bool:
		*dst = x
	case string:
		b, ok := yaml11Bool(x)
		if !ok {
			return typeErr(key, "true or false", v)
		}
		*dst = b
	default:
		return typeErr(key, "true or false", v)
	}
	return nil
}

// yaml11Bool reads the words YAML 1.1 takes as booleans: Volcano reads its
// configuration that way, so `yes` in a file written for it means true.
// The configuration is read as YAML 1.2, where they are strings, and
// plugin flags are decoded as booleans by YAML 1.1's rule already.
func yaml11Bool(s string) (value, ok bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE":
		return true, true
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

// String reads a string.
func (a Arguments) String(key string, dst *string) error {
	v, ok := a[key]
	if !ok || v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return typeErr(key, "a string", v)
	}
	*dst = s
	return nil
}

// Duration reads a Go duration string ("1s", "150ms").
func (a Arguments) Duration(key string, dst *time.Duration) error {
	var s string
	if err := a.String(key, &s); err != nil || s == "" {
		return err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return typeErr(key, "a duration of at least 0 such as 1s or 150ms", s)
	}
	*dst = d
	return nil
}

// Unknown returns the keys that are not in known, sorted, so that a plugin can
// reject a misspelt argument instead of ignoring it.
func (a Arguments) Unknown(known ...string) []string {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	var out []string
	for k := range a {
		if !set[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// RejectUnknown returns an error listing keys that are not in known.
func (a Arguments) RejectUnknown(known ...string) error {
	if u := a.Unknown(known...); len(u) > 0 {
		return fmt.Errorf("unknown arguments %q: expected some of %q", u, known)
	}
	return nil
}

// ResourceWeights reads the binpack-style weights of extended resources:
// a comma list of resource names under listKey and each listed name's
// weight under prefix+name (1 when absent; a negative weight counts as 1,
// as in Volcano). It also returns the weight keys it read.
func (a Arguments) ResourceWeights(listKey, prefix string) (map[string]int, []string, error) {
	var list string
	if err := a.String(listKey, &list); err != nil {
		return nil, nil, err
	}
	weights, keys := map[string]int{}, []string(nil)
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		w := 1
		if err := a.Int(prefix+name, &w); err != nil {
			return nil, nil, err
		}
		if w < 0 {
			w = 1
		}
		weights[name] = w
		keys = append(keys, prefix+name)
	}
	return weights, keys, nil
}

// AsArguments reads a nested YAML map (a list item, a map-valued
// argument), whatever its key type; ok is false for anything else.
func AsArguments(v any) (Arguments, bool) {
	switch m := v.(type) {
	case map[string]any:
		return Arguments(m), true
	case Arguments:
		return m, true
	case map[any]any:
		out := Arguments{}
		for k, x := range m {
			ks, ok := k.(string)
			if !ok {
				return nil, false
			}
			out[ks] = x
		}
		return out, true
	case nil:
		return Arguments{}, false
	}
	return nil, false
}

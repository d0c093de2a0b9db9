package caldera

import (
	"errors"
	"sort"
	"strconv"
	"strings"
)

// The SDK builds its messages without fmt, which brings reflect and os
// into a Go-toolchain module, and wazero compiles all of it again at each
// load (docs/performance.md, "Module size and compile time").

// prefixed is fmt.Errorf("%s: %w", prefix, cause).
type prefixed struct {
	prefix string
	cause  error
}

func (e prefixed) Error() string { return e.prefix + ": " + e.cause.Error() }
func (e prefixed) Unwrap() error { return e.cause }

func wrap(prefix string, cause error) error { return prefixed{prefix, cause} }

func itoa[T ~int | ~int32 | ~uint32](v T) string { return strconv.FormatInt(int64(v), 10) }

// handleError: a request named object i of a list of n.
func handleError(kind string, i int32, n int) error {
	return errors.New(kind + " handle " + itoa(i) + " of " + itoa(n))
}

// valueString shows an argument's value as fmt's %v would, for the types
// arguments decode to.
func valueString(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = valueString(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + ":" + valueString(v[k])
		}
		return "map[" + strings.Join(keys, " ") + "]"
	case []byte:
		parts := make([]string, len(v))
		for i, c := range v {
			parts[i] = strconv.Itoa(int(c))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case nil:
		return "<nil>"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case int:
		return strconv.Itoa(v)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case uint32:
		return strconv.FormatUint(uint64(v), 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	}
	return "?" // arguments decode to none of the other types
}

// eventError: an event names object i of a list of n.
func eventError(kind int32, what string, i int32, n int) error {
	return errors.New("event " + itoa(kind) + " names " + what + " " + itoa(i) + " of " + itoa(n))
}

// setEntryError: a delta's set entry is not a [handle, object] pair.
func setEntryError(j uint32, err error) error {
	msg := "set entry " + itoa(j) + ": want [handle, object]"
	if err == nil {
		return errors.New(msg)
	}
	return wrap(msg, err)
}

// ArgumentError is the error for an argument of the wrong type, in the
// words fmt.Errorf("argument %q: expected %s, got %T %v", key, expected,
// got, got) would use for the types arguments decode to (nil, bool,
// int64, uint64, float32, float64, string, []byte, []any and
// map[string]any) and for int, int32 and uint32, as tests write them, for a plugin that reads its own argument types without
// importing fmt (see the plugin guide's note on module size).
func ArgumentError(key, expected string, got any) error {
	return errors.New("argument " + strconv.Quote(key) + ": expected " + expected + ", got " + typeName(got) + " " + valueString(got))
}

// typeName names the Go type of an argument's value as fmt's %T does.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "<nil>"
	case string:
		return "string"
	case bool:
		return "bool"
	case int64:
		return "int64"
	case uint64:
		return "uint64"
	case int:
		return "int"
	case int32:
		return "int32"
	case uint32:
		return "uint32"
	case float64:
		return "float64"
	case float32:
		return "float32"
	case []byte:
		return "[]uint8"
	case []any:
		return "[]interface {}"
	case map[string]any:
		return "map[string]interface {}"
	}
	return "?"
}

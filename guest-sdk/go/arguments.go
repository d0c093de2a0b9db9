package caldera

import (
	"math"
	"strconv"
)

// The argument readers take what the scheduler's own readers take
// (scheduler/framework's Arguments), so that a value the scheduler
// accepted when it loaded the configuration is one the module accepts,
// and refuse the rest in the same words: argument "key": expected an
// integer, got string heavy. An absent or null argument is the default.
// Values of Go's own types (int, int32, float32, ...) are taken too, for
// unit tests that build a Session by hand.

// Int reads an integer argument: an integer, a whole float within int64,
// or a string of one.
func (s *Session) Int(key string, def int64) (int64, error) {
	v, ok := s.Arguments[key]
	if !ok || v == nil {
		return def, nil
	}
	if n, ok := goInt(v); ok {
		return n, nil
	}
	switch x := v.(type) {
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), nil
		}
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), nil
		}
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, nil
		}
	}
	return def, ArgumentError(key, "an integer", v)
}

// Float reads a finite number: an integer, a float, or a string of one.
func (s *Session) Float(key string, def float64) (float64, error) {
	v, ok := s.Arguments[key]
	if !ok || v == nil {
		return def, nil
	}
	if n, ok := goInt(v); ok {
		return float64(n), nil
	}
	var f float64
	switch x := v.(type) {
	case uint64:
		return float64(x), nil
	case float64:
		f = x
	case float32:
		f = float64(x)
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return def, ArgumentError(key, "a finite number", v)
		}
	default:
		return def, ArgumentError(key, "a number", v)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return def, ArgumentError(key, "a finite number", v)
	}
	return f, nil
}

// Bool reads true or false, or a string YAML 1.1 reads as one (yes, no,
// on, off, y, n), as Volcano's configuration reader does.
func (s *Session) Bool(key string, def bool) (bool, error) {
	v, ok := s.Arguments[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch x {
		case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE":
			return true, nil
		case "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE":
			return false, nil
		}
	}
	return def, ArgumentError(key, "true or false", v)
}

// String reads a string.
func (s *Session) String(key string, def string) (string, error) {
	v, ok := s.Arguments[key]
	if !ok || v == nil {
		return def, nil
	}
	if x, ok := v.(string); ok {
		return x, nil
	}
	return def, ArgumentError(key, "a string", v)
}

// goInt reads the integer types a Go test may put in Arguments.
func goInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

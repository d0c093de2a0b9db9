package caldera

import (
	"math"
	"testing"
)

// The readers take what the scheduler's readers take, Go's own integer
// types included (a test's map[string]any{"w": 2}), and refuse the rest in
// the scheduler's words.
func TestArgumentReaders(t *testing.T) {
	s := &Session{Arguments: map[string]any{
		"int": 2, "int32": int32(-3), "int64": int64(4), "whole": 5.0, "numeric": "6", "u": uint64(7),
		"float": 2.5, "ftext": "0.25", "inf": math.Inf(1), "yes": "yes", "off": "off", "true": true,
		"word": "ten", "nil": nil, "list": []any{int64(1)},
	}}
	for key, want := range map[string]int64{"int": 2, "int32": -3, "int64": 4, "whole": 5, "numeric": 6, "u": 7, "absent": 9, "nil": 9} {
		if got, err := s.Int(key, 9); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", key, got, err, want)
		}
	}
	for key, want := range map[string]float64{"float": 2.5, "ftext": 0.25, "int": 2, "absent": 1.5} {
		if got, err := s.Float(key, 1.5); err != nil || got != want {
			t.Errorf("Float(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	for key, want := range map[string]bool{"yes": true, "off": false, "true": true, "absent": true} {
		if got, err := s.Bool(key, true); err != nil || got != want {
			t.Errorf("Bool(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	if got, err := s.String("word", ""); err != nil || got != "ten" {
		t.Errorf("String(word) = %q, %v", got, err)
	}
	for _, c := range []struct {
		read func() error
		want string
	}{
		{func() error { _, err := s.Int("word", 0); return err }, `argument "word": expected an integer, got string ten`},
		{func() error { _, err := s.Int("float", 0); return err }, `argument "float": expected an integer, got float64 2.5`},
		{func() error { _, err := s.Float("inf", 0); return err }, `argument "inf": expected a finite number, got float64 +Inf`},
		{func() error { _, err := s.Float("list", 0); return err }, `argument "list": expected a number, got []interface {} [1]`},
		{func() error { _, err := s.Bool("int", false); return err }, `argument "int": expected true or false, got int 2`},
		{func() error { _, err := s.String("int32", ""); return err }, `argument "int32": expected a string, got int32 -3`},
	} {
		if err := c.read(); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func TestLevelDebugIsKlogVerbosity(t *testing.T) {
	if LevelDebug(1) != 3 || LevelDebug(5) != 5 || LevelDebug(12) != 9 {
		t.Errorf("LevelDebug = %d %d %d, want 3 5 9", LevelDebug(1), LevelDebug(5), LevelDebug(12))
	}
	Log(LevelInfo, "a line from a unit test goes to stderr")
}

package framework

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Numbers an integer cannot hold are refused, never wrapped: YAML reads
// 99999999999999999999 and 1e300 as floats.
func TestIntRefusesWhatWouldWrap(t *testing.T) {
	for _, v := range []any{1e300, -1e21, math.Inf(1), math.NaN(), 99999999999999999999.0, uint64(math.MaxUint64), 9.3e18} {
		n := 7
		err := Arguments{"weight": v}.Int("weight", &n)
		if err == nil || n != 7 {
			t.Errorf("%v: read %d, %v; want an error and the destination untouched", v, n, err)
		}
	}
	n := 0
	if err := (Arguments{"weight": float64(1 << 53)}).Int("weight", &n); err != nil || n != 1<<53 {
		t.Errorf("2^53: %d, %v", n, err)
	}
}

func TestFloat64RefusesWhatIsNotFinite(t *testing.T) {
	for _, v := range []any{math.Inf(-1), math.NaN(), ".inf", "NaN"} {
		f := 1.5
		if err := (Arguments{"x": v}).Float64("x", &f); err == nil || !strings.Contains(err.Error(), "finite") || f != 1.5 {
			t.Errorf("%v: read %v, %v", v, f, err)
		}
	}
}

func TestDurationRefusesNegative(t *testing.T) {
	d := time.Second
	if err := (Arguments{"t": "-1s"}).Duration("t", &d); err == nil || d != time.Second {
		t.Errorf("-1s: read %v, %v", d, err)
	}
}

// A boolean argument takes YAML 1.1's words, as Volcano's reader does, and
// refuses anything else.
func TestBoolTakesYAML11Words(t *testing.T) {
	for v, want := range map[any]bool{true: true, "yes": true, "On": true, "Y": true, false: false, "no": false, "OFF": false} {
		got := !want
		if err := (Arguments{"k": v}).Bool("k", &got); err != nil || got != want {
			t.Errorf("Bool(%v) = %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []any{"maybe", "1", 1} {
		var got bool
		if err := (Arguments{"k": v}).Bool("k", &got); err == nil {
			t.Errorf("Bool(%v) = %v, want an error", v, got)
		}
	}
}

package main

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// parseReservation reads "cpu=6,memory=2Gi,nvidia.com/gpu=1": cpu in
// milli-CPU, memory in bytes, pods as a count, any other name as a scalar
// in milli-units, each rounded up.
func parseReservation(text string) (caldera.Resource, error) {
	var r caldera.Resource
	seen := map[string]bool{}
	for _, pair := range strings.Split(text, ",") {
		name, value, ok := strings.Cut(pair, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok && name == "":
			return r, fmt.Errorf("an empty entry")
		case !ok:
			return r, fmt.Errorf("%q has no =", name)
		case name == "":
			return r, fmt.Errorf("an entry has no resource name")
		case value == "":
			return r, fmt.Errorf("%s has no quantity", name)
		case seen[name]:
			return r, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		unit := uint64(1000) // milli-units
		if name == "memory" || name == "pods" {
			unit = 1
		}
		q, err := parseQuantity(value, unit)
		if err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		switch name {
		case "cpu":
			r.MilliCPU = q
		case "memory":
			r.Memory = q
		default:
			r.Scalars.Set(name, q)
		}
	}
	return r, nil
}

// suffixes are a quantity's multipliers as numerator and denominator.
var suffixes = map[string][2]uint64{
	"": {1, 1}, "m": {1, 1000},
	"k": {1e3, 1}, "M": {1e6, 1}, "G": {1e9, 1}, "T": {1e12, 1}, "P": {1e15, 1}, "E": {1e18, 1},
	"Ki": {1 << 10, 1}, "Mi": {1 << 20, 1}, "Gi": {1 << 30, 1}, "Ti": {1 << 40, 1}, "Pi": {1 << 50, 1}, "Ei": {1 << 60, 1},
}

// parseQuantity reads a non-negative decimal number with an optional
// suffix and returns it times unit, rounded up. Integer arithmetic in 128
// bits: exact, and without math/big, which is slow under TinyGo.
func parseQuantity(s string, unit uint64) (int64, error) {
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.') {
		end++
	}
	number, suffix := s[:end], s[end:]
	mult, ok := suffixes[suffix]
	whole, frac, _ := strings.Cut(number, ".")
	digits := whole + frac
	if !ok || digits == "" || strings.Contains(frac, ".") {
		return 0, fmt.Errorf("%q is not a quantity", s)
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) > 18 || len(frac) > 18 {
		return 0, fmt.Errorf("%q has more digits than a quantity can", s)
	}
	mantissa, err := strconv.ParseUint("0"+digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a quantity", s)
	}
	// value = mantissa * mult[0] * unit / (10^len(frac) * mult[1]), up.
	hi, lo := bits.Mul64(mantissa, mult[0])
	hiU, hi2 := bits.Mul64(hi, unit)
	loHi, lo := bits.Mul64(lo, unit)
	hi, carry := bits.Add64(hi2, loHi, 0)
	den := mult[1]
	for range len(frac) {
		var over uint64
		if over, den = bits.Mul64(den, 10); over != 0 {
			return 0, fmt.Errorf("%q has more decimal places than a quantity can", s)
		}
	}
	if hiU != 0 || carry != 0 || hi >= den {
		return 0, fmt.Errorf("%q is too large", s)
	}
	q, rem := bits.Div64(hi, lo, den)
	if q > math.MaxInt64 || rem != 0 && q == math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if rem != 0 {
		q++
	}
	return int64(q), nil
}

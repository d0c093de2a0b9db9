package main

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

var (
	_ caldera.CacheEventHandler  = (*handler)(nil)
	_ caldera.EventKindsDeclarer = (*handler)(nil)
)

func TestParseReservation(t *testing.T) {
	for text, want := range map[string]caldera.Resource{
		"cpu=6,memory=2Gi":         {MilliCPU: 6000, Memory: 2 << 30},
		" cpu = 500m ":             {MilliCPU: 500},
		"cpu=1.5":                  {MilliCPU: 1500},
		"cpu=1m":                   {MilliCPU: 1},
		"memory=1.5Ki":             {Memory: 1536},
		"memory=0.5":               {Memory: 1},
		"cpu=1.5m":                 {MilliCPU: 2},
		"memory=7Ei":               {Memory: 7 << 60},
		"memory=1G,pods=3":         {Memory: 1e9, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 3})},
		"nvidia.com/gpu=1,cpu=.25": {MilliCPU: 250, Scalars: caldera.ScalarsOf(map[string]int64{"nvidia.com/gpu": 1000})},
	} {
		got, err := parseReservation(text)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseReservation(%q) = %+v, %v; want %+v", text, got, err, want)
		}
	}
	for text, want := range map[string]string{
		"cpu=abc":                   `cpu: "abc" is not a quantity`,
		"cpu=6,":                    "an empty entry",
		"cpu":                       `"cpu" has no =`,
		"=6":                        "no resource name",
		"cpu=":                      "cpu has no quantity",
		"cpu=1,cpu=2":               "cpu is given twice",
		"cpu=-1":                    `"-1" is not a quantity`,
		"memory=2Gb":                `"2Gb" is not a quantity`,
		"memory=1.2.3":              `"1.2.3" is not a quantity`,
		"nvidia.com/gpu=9E":         "too large",
		"memory=9Ei":                "too large",
		"cpu=0.0000000000000000001": "more digits",
		"cpu=1e3":                   `"1e3" is not a quantity`,
	} {
		if _, err := parseReservation(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseReservation(%q) = %v, want an error containing %q", text, err, want)
		}
	}
}

func node(annotation string) *caldera.Object {
	o := &caldera.Object{
		Name:        "n1",
		Allocatable: &caldera.Resource{MilliCPU: 8000, Memory: 4 << 30, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 110})},
	}
	if annotation != "" {
		o.Annotations = map[string]string{Annotation: annotation}
	}
	return o
}

func TestOnCacheEvent(t *testing.T) {
	h := &handler{warned: map[string]bool{}}
	got := h.OnCacheEvent(&caldera.CacheEvent{Type: "add", Kind: "Node", New: node("cpu=6,memory=8Gi,pods=10,nvidia.com/gpu=2")})
	want := caldera.AdjustAllocatable(caldera.Resource{MilliCPU: 2000, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 100})})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reserved node: %+v, want %+v (memory clamped at zero, no gpu scalar added)", got, want)
	}
	for name, ev := range map[string]*caldera.CacheEvent{
		"no annotation":    {Type: "update", Kind: "Node", Old: node(""), New: node("")},
		"blank annotation": {Type: "add", Kind: "Node", New: node("  ")},
		"delete":           {Type: "delete", Kind: "Node", Old: node("cpu=1")},
	} {
		if v := h.OnCacheEvent(ev); v.Action != caldera.EventPass {
			t.Errorf("%s: %+v, want pass", name, v)
		}
	}
}

func TestMalformedAnnotationIsLoggedOncePerNode(t *testing.T) {
	h := &handler{warned: map[string]bool{}}
	logged := captureStderr(t, func() {
		for range 3 {
			if v := h.OnCacheEvent(&caldera.CacheEvent{Type: "update", Kind: "Node", New: node("cpu=abc")}); v.Action != caldera.EventPass {
				t.Errorf("malformed: %+v, want pass", v)
			}
		}
	})
	want := "node n1: annotation caldera.sh/external-reserved=\"cpu=abc\" is malformed (cpu: \"abc\" is not a quantity); ignored\n"
	if logged != want {
		t.Errorf("logged %q, want once %q", logged, want)
	}
}

func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	f()
	os.Stderr = saved
	w.Close()
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, r)
	return buf.String()
}

package handler

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/hostplugins/binpack"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The example's score must equal the native plugin's to the last bit, or
// the benchmark would compare different placements.
func TestBinpackScoreIsNativeBinpacks(t *testing.T) {
	weights := binpack.Weights{Binpack: 1, CPU: 1, Memory: 1, Scalars: map[v1.ResourceName]int{}}
	const gi = 1 << 30
	tests := []struct {
		name              string
		req, alloc, inUse api.Resource
	}{
		{"empty node", api.Resource{MilliCPU: 1000, Memory: 2 * gi}, api.Resource{MilliCPU: 32000, Memory: 128 * gi}, api.Resource{}},
		{"busy node", api.Resource{MilliCPU: 1000, Memory: 2 * gi}, api.Resource{MilliCPU: 32000, Memory: 128 * gi}, api.Resource{MilliCPU: 17000, Memory: 34 * gi}},
		{"cpu overflows", api.Resource{MilliCPU: 3000}, api.Resource{MilliCPU: 4000, Memory: gi}, api.Resource{MilliCPU: 2000}},
		{"memory only", api.Resource{Memory: gi}, api.Resource{MilliCPU: 4000, Memory: 3 * gi}, api.Resource{Memory: gi}},
		{"node without memory", api.Resource{MilliCPU: 500, Memory: gi}, api.Resource{MilliCPU: 4000}, api.Resource{}},
		{"nothing requested", api.Resource{}, api.Resource{MilliCPU: 4000, Memory: gi}, api.Resource{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := binpack.Score(&tc.req, &tc.alloc, &tc.inUse, &weights)
			conv := func(r api.Resource) *resource { return &resource{MilliCPU: r.MilliCPU, Memory: r.Memory} }
			if got := binpackScore(conv(tc.req), conv(tc.alloc), conv(tc.inUse)); got != want {
				t.Fatalf("score %v, native binpack %v", got, want)
			}
		})
	}
}

// Requests shaped as Volcano sends them, with keys the handler does not
// read, get the policy's answers.
func TestHandlerAnswers(t *testing.T) {
	srv := httptest.NewServer(New(Options{AvoidKey: "caldera.example/avoid", AvoidValue: "true"}))
	defer srv.Close()
	const task = `{"UID": "u1", "Name": "p1", "Namespace": "c1", "Status": 1, "Pod": {"metadata": {"name": "p1"}},
		"Resreq": {"MilliCPU": 1000, "Memory": 1073741824, "ScalarResources": {"pods": 1}, "MaxTaskNum": 0}}`
	node := func(name, label string, usedCPU int) string {
		return `{"Name": "` + name + `", "State": {"Phase": 1, "Reason": ""}, "Tasks": {},
			"Node": {"metadata": {"name": "` + name + `", "labels": {` + label + `}}},
			"Allocatable": {"MilliCPU": 4000, "Memory": 8589934592},
			"Used": {"MilliCPU": ` + strconv.Itoa(usedCPU*1000) + `, "Memory": 0}}`
	}
	n1, n2 := node("n1", `"caldera.example/avoid": "true"`, 0), node("n2", "", 2)
	tests := []struct {
		verb, body, want string
	}{
		{"predicate", `{"task": ` + task + `, "node": ` + n1 + `}`, `{"status":"node has label caldera.example/avoid=true","code":3}`},
		{"predicate", `{"task": ` + task + `, "node": ` + n2 + `}`, `{"status":"","code":0}`},
		{"batchPredicate", `{"task": ` + task + `, "nodes": [` + n1 + `, ` + n2 + `]}`, `{"nodeStatus":{"n1":{"status":"node has label caldera.example/avoid=true","code":3}}}`},
		// n1: (1/4 + 1/8)/2*100; n2: (3/4 + 1/8)/2*100.
		{"prioritize", `{"task": ` + task + `, "nodes": [` + n1 + `, ` + n2 + `]}`, `{"nodeScore":{"n1":18.75,"n2":43.75},"errorMessage":""}`},
	}
	for _, tc := range tests {
		t.Run(tc.verb, func(t *testing.T) {
			resp, err := http.Post(srv.URL+"/"+tc.verb, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got json.RawMessage
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, %v", resp.StatusCode, err)
			}
			if string(got) != tc.want {
				t.Fatalf("answer %s, want %s", got, tc.want)
			}
		})
	}
	resp, err := http.Post(srv.URL+"/prioritize", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("garbage request: status %d, want 400", resp.StatusCode)
	}
}

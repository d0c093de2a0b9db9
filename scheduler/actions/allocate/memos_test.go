package allocate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/hostplugins/nodeorder"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/randomcluster"
)

// Random clusters are decided the same with the searches' remembered
// verdicts and nodeorder's score rows as when every node is asked and
// scored every time, and each reused answer is what computing it again
// gives: Volcano's default configuration and
// one with every action and binpack, each until quiet, on clusters small
// enough that each search sees every node and large enough that it does
// not.
//
// A third configuration serves predicates from the TinyGo port, whose
// adapter makes the promise for its NodeLocal module.
func TestMemosDecideAsComputing(t *testing.T) {
	full := `actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}, {name: binpack}]
`
	configs := map[string][]byte{"default": conf.DefaultYAML(), "full": []byte(full)}
	const port = "predicates.tinygo"
	module, err := runtime.Load(context.Background(), "../../../build/plugins/"+port+".wasm",
		runtime.Options{Name: port, Limits: runtime.DefaultLimits()})
	switch {
	case err == nil:
		defer module.Close(context.Background())
		configs["tinygo-port"] = bytes.Replace(conf.DefaultYAML(), []byte("name: predicates\n"), []byte("name: "+port+"\n"), 1)
	case os.Getenv("CALDERA_REQUIRE_PLUGINS") != "":
		t.Fatalf("%s: %v (make plugins builds it)", port, err)
	default:
		t.Logf("without the %s configuration: %v", port, err)
	}
	registry := func() framework.Registry {
		r := hostplugins.Registry()
		if module != nil {
			r[port] = runtime.Factory(port, module, runtime.Policy{})
		}
		return r
	}
	v := framework.Validator{Plugins: registry(), Actions: actions.Registry()}
	seeds := int64(12)
	if testing.Short() {
		seeds = 3
	}
	sizes := map[string]func(int64) []byte{"small": randomcluster.Generate, "large": randomcluster.GenerateLarge}
	for name, yaml := range configs {
		cfg, err := conf.Parse(yaml, name, v)
		if err != nil {
			t.Fatal(err)
		}
		for size, generate := range sizes {
			for seed := int64(1); seed <= seeds; seed++ {
				t.Run(fmt.Sprintf("%s/%s/seed=%d", name, size, seed), func(t *testing.T) {
					run := func() *simulator.Result {
						c, err := simulator.ParseCluster(generate(seed), "random")
						if err != nil {
							t.Fatal(err)
						}
						// Fresh actions: each keeps where its searches start.
						res, err := simulator.Run(context.Background(), simulator.Options{Cluster: c, Config: cfg, Plugins: registry(), Actions: actions.Registry()})
						if err != nil {
							t.Fatal(err)
						}
						return res
					}
					verdicts, stopVerdicts := placement.VerdictMemo.Check()
					rows, stopRows := nodeorder.RowMemo.Check()
					remembered := run()
					stopVerdicts()
					stopRows()
					for name, c := range map[string]*framework.MemoCheck{"verdicts": verdicts, "score rows": rows} {
						reused, wrong, first := c.Result()
						if reused == 0 {
							t.Errorf("no %s reused: the cluster tests nothing", name)
						}
						if wrong > 0 {
							t.Errorf("%d of %d reused %s differ from computing again; first: %s", wrong, reused, name, first)
						}
					}
					restoreVerdicts, restoreRows := placement.VerdictMemo.Forget(), nodeorder.RowMemo.Forget()
					asked := run()
					restoreVerdicts()
					restoreRows()
					if len(asked.Binds) == 0 {
						t.Fatal("nothing bound: the cluster tests nothing")
					}
					if !reflect.DeepEqual(remembered, asked) {
						t.Errorf("with the memos:\n%+v\nwithout:\n%+v", remembered, asked)
					}
				})
			}
		}
	}
}

# Caldera build and test entry points. Versions of external tools live here.
GO ?= go
EXAMPLE_CLUSTER ?= examples/clusters/training-cluster.yaml

.PHONY: all build test check fmt-check vet tidy-check simulate bench acceptance

all: build

build:
	$(GO) build -o build/caldera ./cmd/caldera

# Unit tests, the acceptance scenarios and the simulator; what CI runs.
test:
	$(GO) test -count=1 ./...

# Only the scenario folders under testdata/scenarios, run through `caldera simulate`.
acceptance:
	$(GO) test -count=1 -run 'TestScenarios' -v ./cmd/caldera/

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

tidy-check:
	$(GO) mod tidy -diff

check: fmt-check vet tidy-check test

# README's first command: the scheduler on the example cluster, embedded default configuration.
simulate: build
	./build/caldera simulate --cluster $(EXAMPLE_CLUSTER)

# Session benchmarks (not part of CI). Compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench 'BenchmarkSession' -benchmem -count 5 -timeout 60m ./benchmarks/ | tee build/bench.txt

# Caldera build and test entry points. Versions of external tools live here.
GO ?= go
EXAMPLE_CLUSTER ?= examples/clusters/training-cluster.yaml

# Real components for the end-to-end suite (built from Go modules by hack/e2e-tools.sh,
# cached under E2E_CACHE) and the controller-gen release that generates deploy/crds.
ETCD_VERSION ?= v3.5.35
KUBE_VERSION ?= v1.32.13
KWOK_VERSION ?= v0.8.0
CONTROLLER_TOOLS_VERSION ?= v0.18.0
# TinyGo for Wasm plugin guests, built from its Go module against Debian's LLVM 19
# (hack/tinygo.sh, cached under TINYGO_CACHE); TINYGO_GO is the Go toolchain it uses.
TINYGO_VERSION ?= 0.40.1
TINYGO_GO ?= go1.25.9
TINYGO_CACHE ?= $(CURDIR)/.cache/tinygo
E2E_CACHE ?= $(CURDIR)/.cache/e2e
E2E_TOOLS_ENV = GO=$(GO) ETCD_VERSION=$(ETCD_VERSION) KUBE_VERSION=$(KUBE_VERSION) \
	KWOK_VERSION=$(KWOK_VERSION) CONTROLLER_TOOLS_VERSION=$(CONTROLLER_TOOLS_VERSION)

.PHONY: all build test check test-all fmt-check vet tidy-check simulate bench acceptance

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

# The whole suite, what .ci/run runs: make check, the deployment manifests, and the
# end-to-end suite on a real kube-apiserver (first run builds etcd, kube-apiserver and
# kwok into .cache/e2e: ~13 min on 2 cores; later runs ~1 min).
test-all: check deploy-check e2e

# README's first command: the scheduler on the example cluster, embedded default configuration.
simulate: build
	./build/caldera simulate --cluster $(EXAMPLE_CLUSTER)

# Session benchmarks (not part of CI). Compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench 'BenchmarkSession' -benchmem -count 5 -timeout 60m ./benchmarks/ | tee build/bench.txt

.PHONY: e2e-tools crds

# etcd, kube-apiserver and kwok for the end-to-end suite (cold ~13 min, then cached), plus the CRDs.
e2e-tools:
	$(E2E_TOOLS_ENV) hack/e2e-tools.sh $(E2E_CACHE)

# Regenerate Volcano's PodGroup and Queue CRDs (deploy/crds) from the volcano.sh/apis types.
crds:
	$(E2E_TOOLS_ENV) hack/e2e-tools.sh $(E2E_CACHE) crds

.PHONY: deploy-check

# Validates deploy/caldera.yaml and deploy/crds without a cluster (deploy/check): strict
# decoding into the Kubernetes types, the ConfigMap's scheduler configuration loaded as
# `caldera run` loads it, the Deployment's flags against `caldera run --help`, and the
# references between the objects. `kubectl --dry-run=client` is no substitute: it needs
# an API server for discovery.
deploy-check: build
	$(GO) run ./deploy/check -caldera build/caldera deploy/caldera.yaml deploy/crds/*.yaml

.PHONY: e2e

# End-to-end suite (e2e/): real etcd, kube-apiserver and kwok on loopback and `caldera run`
# built from this tree, one test at a time (~1 min warm). E2E_RUN selects tests by -run regexp.
E2E_RUN ?=
e2e: e2e-tools
	CALDERA_E2E=1 CALDERA_E2E_BIN=$(E2E_CACHE)/bin CALDERA_E2E_KWOK_STAGES=$(E2E_CACHE)/kwok-stages.yaml GO=$(GO) \
		$(GO) test -count=1 -timeout 30m -v -run '$(E2E_RUN)' ./e2e/...

.PHONY: tinygo

# TinyGo for plugin guests (cold ~3-4 min, then cached): use $(TINYGO_CACHE)/bin/tinygo-wrapped.
tinygo:
	GO=$(GO) TINYGO_VERSION=$(TINYGO_VERSION) TINYGO_GO=$(TINYGO_GO) hack/tinygo.sh $(TINYGO_CACHE)

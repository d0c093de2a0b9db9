# Caldera build and test entry points. Versions of external tools live here.
GO ?= go
EXAMPLE_CLUSTER ?= examples/clusters/training-cluster.yaml

# Real components for the end-to-end suite (built from Go modules by hack/e2e-tools.sh,
# cached under E2E_CACHE) and the controller-gen release that generates deploy/crds.
ETCD_VERSION ?= v3.5.35
KUBE_VERSION ?= v1.32.13
KWOK_VERSION ?= v0.8.0
CONTROLLER_TOOLS_VERSION ?= v0.18.0
# The distribution project's OCI registry, which serves modules to wasm.image.
REGISTRY_VERSION ?= v3.1.2
# Volcano's own vc-controller-manager (and vc-scheduler), run beside caldera by the
# end-to-end suite: the one release of volcano.sh/volcano the module proxy serves.
VOLCANO_VERSION ?= v1.10.0
# Staging modules of KUBE_VERSION that the module proxy does not serve, built at a
# neighbouring release instead (kube-scheduler, for bench-e2e, imports the first two,
# kube-controller-manager all three; kube-apiserver none). The first two's Go source
# at v0.33.13 is that of v0.32.13: the tags differ only in comments and go.mod.
# k8s.io/endpointslice changed code by v0.33.13, so the previous patch release
# stands in for it (v0.32.11 and v0.32.12 differ only in go.mod).
KUBE_STAGING_SUBSTITUTES ?= k8s.io/kube-scheduler@v0.33.13 k8s.io/csi-translation-lib@v0.33.13 \
	k8s.io/endpointslice@v0.32.12
# TinyGo for Wasm plugin guests, built from its Go module against Debian's LLVM 19
# (hack/tinygo.sh, cached under TINYGO_CACHE); TINYGO_GO is the Go toolchain it uses.
TINYGO_VERSION ?= 0.40.1
TINYGO_GO ?= go1.25.9
TINYGO_CACHE ?= $(CURDIR)/.cache/tinygo
# Rust for plugin guests: Debian bookworm's rustc 1.63 and cargo with its wasm32
# standard libraries, serde 1.0.152 and rmp-serde 1.1.1 from Debian's packaged
# crates (crates.io is not reachable), linked by lld RUST_LLD_VERSION's wasm-ld
# (hack/rust.sh, configured under RUST_CACHE). RUST_TARGET is what `make plugins`
# builds the Rust examples for; wasm32-wasi modules load too.
RUST_LLD_VERSION ?= 14
RUST_CACHE ?= $(CURDIR)/.cache/rust
RUST_TARGET ?= wasm32-unknown-unknown
E2E_CACHE ?= $(CURDIR)/.cache/e2e
E2E_TOOLS_ENV = GO=$(GO) ETCD_VERSION=$(ETCD_VERSION) KUBE_VERSION=$(KUBE_VERSION) \
	KWOK_VERSION=$(KWOK_VERSION) CONTROLLER_TOOLS_VERSION=$(CONTROLLER_TOOLS_VERSION) \
	KUBE_STAGING_SUBSTITUTES="$(KUBE_STAGING_SUBSTITUTES)" VOLCANO_VERSION=$(VOLCANO_VERSION) \
	REGISTRY_VERSION=$(REGISTRY_VERSION)

.PHONY: all build test check sdk-check test-all fuzz fmt-check vet tidy-check simulate bench acceptance

all: build

build:
	$(GO) build -o build/caldera ./cmd/caldera

# Unit tests, the acceptance scenarios and the simulator, then the Rust SDK's and
# examples' tests; what CI runs. With the ports built, cmd/caldera's differential
# test runs every scenario through the Go, TinyGo and Rust builds of the ports:
# cmd/caldera takes 600-625 s on the 2-core machine, beyond go test's default
# 10-minute limit per package; 45 minutes leaves room for a loaded machine.
test:
	$(GO) test -count=1 -timeout 45m ./...
	@$(MAKE) --no-print-directory rust-test

# Only the scenario folders under testdata/scenarios, through `caldera plugin test`'s runner.
acceptance:
	$(GO) test -count=1 -run 'TestScenarios' -v ./cmd/caldera/

fmt-check:
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

tidy-check:
	$(GO) mod tidy -diff

check: fmt-check vet tidy-check test sdk-check

# The Go guest SDK is a module of its own (go 1.25, no client-go for policy authors).
sdk-check:
	cd guest-sdk/go && GOTOOLCHAIN=local $(GO) vet ./... && GOTOOLCHAIN=local GOOS=wasip1 GOARCH=wasm $(GO) vet ./... && \
		GOTOOLCHAIN=local $(GO) mod tidy -diff && GOTOOLCHAIN=local $(GO) test -count=1 ./...
	@# The example ports are plain Go too: their own unit tests run without Wasm.
	@for d in examples/plugins/*/go examples/eventhandlers/*/go runtime/testdata/guests/hostile runtime/testdata/guests/garbage; do \
		(cd $$d && GOTOOLCHAIN=local $(GO) vet ./... && GOTOOLCHAIN=local $(GO) test -count=1 ./... >/dev/null) || { echo "sdk-check: $$d failed"; exit 1; }; \
	done

# The whole suite, what .ci/run runs: make check, the deployment manifests, and the
# end-to-end suite on a real kube-apiserver (first run builds etcd, kube-apiserver,
# kube-controller-manager, kwok and Volcano's controllers into .cache/e2e: ~20 min on
# 2 cores; later runs ~1 min).
# With the example plugins built, the Wasm differential tests must run (not skip).
test-all: plugins
	CALDERA_REQUIRE_PLUGINS=1 $(MAKE) check
	$(MAKE) fuzz
	CALDERA_REQUIRE_PLUGINS=1 $(MAKE) deploy-check e2e

# Go's fuzzer on every decoder of bytes the scheduler does not control: guest replies,
# descriptors and event verdicts (runtime), extender answers (hostplugins/extender), the
# scheduler configuration (scheduler/conf) and cluster manifests (scheduler/simulator).
# The seeds (golden vectors, scenario files, and any input a failure saved under the
# package's testdata/fuzz) also run in every `go test`.
# Each target runs for a count of inputs, what about 10 s reaches on 2 cores, not for a
# duration: Go 1.26's fuzz coordinator can fail a clean duration-bounded pass with
# "context deadline exceeded" when the deadline lands mid-input (a race fixed in Go 1.27);
# a count has no deadline. FUZZTIME=5m (or 1000000x) overrides the count for every target.
# Each new interesting input is shrunk with at most 500 runs: Go's default, 60 s per input,
# spent whole short passes shrinking a few inputs.
FUZZTIME ?=
FUZZ_TARGETS = runtime:FuzzDecodeReply:6000x runtime:FuzzDescriptor:8000x \
	runtime:FuzzEventVerdict:8000x hostplugins/extender:FuzzAnswers:1200x \
	scheduler/conf:FuzzParse:100000x scheduler/simulator:FuzzParseCluster:3000x
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; \
		budget="$(FUZZTIME)"; budget=$${budget:-$${rest#*:}}; \
		echo "fuzz: $$pkg $$name for $$budget"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$budget -fuzzminimizetime 500x ./$$pkg || exit 1; \
	done

# README's first command: the scheduler on the example cluster, embedded default configuration.
simulate: build
	./build/caldera simulate --cluster $(EXAMPLE_CLUSTER)

# Session benchmarks (not part of CI). Compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench 'BenchmarkSession' -benchmem -count 5 -timeout 60m ./benchmarks/ | tee build/bench.txt

.PHONY: e2e-tools crds

# etcd, kube-apiserver, kube-controller-manager (its PV binder completes the volume
# bindings the scheduler starts), kwok and Volcano's vc-controller-manager and
# vc-scheduler for the end-to-end suite (cold ~20 min, kube-controller-manager ~3 of
# them after kube-apiserver; then cached), plus the CRDs.
e2e-tools:
	$(E2E_TOOLS_ENV) hack/e2e-tools.sh $(E2E_CACHE)

# Regenerate Volcano's PodGroup, Queue, HyperNode and Numatopology CRDs (deploy/crds) from the volcano.sh/apis types.
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
E2E_ENV = CALDERA_E2E=1 CALDERA_E2E_BIN=$(E2E_CACHE)/bin CALDERA_E2E_KWOK_STAGES=$(E2E_CACHE)/kwok-stages.yaml GO=$(GO)
e2e: e2e-tools
	$(E2E_ENV) $(GO) test -count=1 -timeout 30m -v -run '$(E2E_RUN)' ./e2e/...

.PHONY: bench-e2e

# Throughput on the same real control plane (not part of CI): 10,000 plain pods and 1,000
# gangs of 10 on 1,000 and 5,000 kwok nodes, Caldera beside Volcano's vc-scheduler
# $(VOLCANO_VERSION) (with its controller manager for the plain pods) and kube-scheduler
# $(KUBE_VERSION) (built here, first time ~2 min with kube-apiserver's build cache warm);
# about an hour, most of it vc-scheduler's. Results and
# analysis: docs/performance.md. BENCH_E2E selects cases by -bench regexp; case names have
# three levels, e.g. BENCH_E2E='BenchmarkThroughput/.*/nodes=1000/plain'. The status file
# keeps go test's exit status, which tee's would hide (sh has no pipefail).
BENCH_E2E ?= BenchmarkThroughput
bench-e2e: e2e-tools
	$(E2E_TOOLS_ENV) hack/e2e-tools.sh $(E2E_CACHE) kube-scheduler
	@mkdir -p build
	{ $(E2E_ENV) $(GO) test -count=1 -run '^$$' -bench '$(BENCH_E2E)' -benchtime 1x -timeout 150m ./e2e/ 2>&1; \
		echo $$? >build/bench-e2e.status; } | tee build/bench-e2e.txt; exit $$(cat build/bench-e2e.status)

.PHONY: tinygo

# TinyGo for plugin guests (cold ~3-4 min, then cached): use $(TINYGO_CACHE)/bin/tinygo-wrapped.
tinygo:
	GO=$(GO) TINYGO_VERSION=$(TINYGO_VERSION) TINYGO_GO=$(TINYGO_GO) hack/tinygo.sh $(TINYGO_CACHE)

.PHONY: rust rust-test rust-plugins

# Debian's Rust toolchain and the offline cargo configuration (first run installs the
# packages, ~1 min; then seconds): use $(RUST_CACHE)/bin/cargo-wrapped.
rust:
	RUST_LLD_VERSION=$(RUST_LLD_VERSION) hack/rust.sh $(RUST_CACHE)

# The toolchain's setup without make rust's sample build: the builds and tests
# that follow fail as loudly.
RUST_SETUP := RUST_LLD_VERSION=$(RUST_LLD_VERSION) RUST_VERIFY=0 hack/rust.sh $(RUST_CACHE)

CARGO := $(RUST_CACHE)/bin/cargo-wrapped
# Each checkout builds into its own target folder: worktrees share .cache through a
# link, and two of them building one crate into a shared folder could each copy out
# the other's module.
CARGO_TARGET := $(CURDIR)/build/cargo
CARGO_ENV := CARGO_TARGET_DIR=$(CARGO_TARGET)
# Example policies (examples/plugins) and event handlers (examples/eventhandlers).
RUST_EXAMPLES := $(patsubst %/Cargo.toml,%,$(wildcard examples/plugins/*/rust/Cargo.toml examples/eventhandlers/*/rust/Cargo.toml))
RUST_CRATES := guest-sdk/rust $(RUST_EXAMPLES)

# The Rust SDK's tests (the golden vectors of testdata/abi among them) and the Rust
# examples' unit tests, run natively. Debian's toolchain being installed, the cargo
# configuration is written first (seconds); without it the tests are skipped with a
# message, unless CALDERA_REQUIRE_PLUGINS is set (make test-all), which fails instead.
rust-test:
	@if ! command -v /usr/bin/cargo >/dev/null || [ ! -x /usr/bin/wasm-ld-$(RUST_LLD_VERSION) ]; then \
		if [ -n "$$CALDERA_REQUIRE_PLUGINS" ]; then echo "rust-test: FAILED: Debian's cargo or wasm-ld-$(RUST_LLD_VERSION) is not installed (make rust installs them)"; exit 1; fi; \
		echo "rust-test: SKIPPED: Debian's cargo or wasm-ld-$(RUST_LLD_VERSION) is not installed; make rust installs them"; exit 0; \
	fi; \
	out=$$($(RUST_SETUP) 2>&1) || { echo "$$out"; exit 1; }; \
	for d in $(RUST_CRATES); do \
		echo "rust-test: $$d"; \
		(cd $$d && $(CARGO_ENV) $(CARGO) test -q) || { echo "rust-test: $$d FAILED"; exit 1; }; \
	done

# Every example policy under examples/plugins/<name>/rust and event handler under
# examples/eventhandlers/<name>/rust, built by Debian's cargo into
# build/plugins/<name>.rust.wasm.
rust-plugins:
	@$(RUST_SETUP)
	@mkdir -p build/plugins
	@for dir in $(RUST_EXAMPLES); do \
		name=$$(basename $$(dirname $$dir)); \
		echo "plugin $$name: rust ($(RUST_TARGET))"; \
		(cd $$dir && $(CARGO_ENV) $(CARGO) build -q --release --target $(RUST_TARGET)) || exit 1; \
		cp $(CARGO_TARGET)/$(RUST_TARGET)/release/caldera_$$(echo $$name | tr - _).wasm build/plugins/$$name.rust.wasm || exit 1; \
	done

.PHONY: plugins

# Every example policy under examples/plugins/<name>/go, built with both Go toolchains:
# build/plugins/<name>.go.wasm (Go, wasip1) and build/plugins/<name>.tinygo.wasm (TinyGo);
# and every one under examples/plugins/<name>/rust (rust-plugins).
# Event handlers under examples/eventhandlers/<name>/{go,rust} are built the same way.
GO_EXAMPLES := $(patsubst %/main.go,%,$(wildcard examples/plugins/*/go/main.go examples/eventhandlers/*/go/main.go))
TINYGO := $(TINYGO_CACHE)/bin/tinygo-wrapped
# TinyGo optimises for size by default (-opt=z); -opt=2 makes modules about
# 40 % larger and took 39-45 % off the three hook calls measured
# (docs/performance.md, measured at 57a4850).
TINYGO_OPT ?= 2
plugins: tinygo rust-plugins
	@mkdir -p build/plugins
	@for dir in $(GO_EXAMPLES); do \
		name=$$(basename $$(dirname $$dir)); \
		echo "plugin $$name: go, tinygo"; \
		(cd $$dir && \
		 GOTOOLCHAIN=local GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -o $(CURDIR)/build/plugins/$$name.go.wasm . && \
		 $(TINYGO) build -target=wasip1 -buildmode=c-shared -scheduler=none -no-debug -opt=$(TINYGO_OPT) -o $(CURDIR)/build/plugins/$$name.tinygo.wasm . 2>&1 | grep -v 'is not a recognized feature' ; \
		 test -s $(CURDIR)/build/plugins/$$name.tinygo.wasm) || exit 1; \
	done

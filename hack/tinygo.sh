#!/usr/bin/env bash
# Installs, and caches, TinyGo for building Wasm plugin guests: TinyGo's source is
# taken from the Go module proxy and built against Debian's LLVM 19 (TinyGo is not
# packaged by Debian), following the "TinyGo guests" recipe the machines are known
# to support. Nothing is downloaded except Debian packages and Go modules.
#
# Usage: hack/tinygo.sh [CACHE_DIR]
#   CACHE_DIR   defaults to <repo>/.cache/tinygo (git-ignored)
#
# Environment (the Makefile passes these):
#   TINYGO_VERSION   TinyGo release, without "v" (default 0.40.1)
#   TINYGO_GO        Go toolchain TinyGo is built with and drives (default go1.25.9;
#                    TinyGo 0.40 supports Go 1.19-1.25 only)
#   GO               the installed go command (default go)
#   TINYGO_VERIFY    0 skips building the sample reactor module at the end (default 1)
#
# Layout under CACHE_DIR:
#   bin/tinygo          the compiler
#   bin/tinygo-wrapped  runs bin/tinygo with the environment below; use this one
#   tinygo.env          the same environment as shell `export` lines
#   tinygo-src/         TINYGOROOT: a writable copy of the TinyGo module
#   xdg/                XDG_CACHE_HOME: TinyGo's library cache, pre-seeded with
#                       Debian's wasi-libc and compiler-rt builtins
#   scratch/            a throwaway module from which the TinyGo module is downloaded
#   stamps/tinygo.version   "<TinyGo version> <Go toolchain>" of the built compiler
#
# Steps are skipped when already done: packages that dpkg reports installed, a
# compiler whose stamp matches, library cache entries already in place.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

TINYGO_VERSION="${TINYGO_VERSION:-0.40.1}"
TINYGO_VERSION="${TINYGO_VERSION#v}"
TINYGO_GO="${TINYGO_GO:-go1.25.9}"
TINYGO_VERIFY="${TINYGO_VERIFY:-1}"
GO="${GO:-go}"
LLVM_MAJOR=19

APT_PACKAGES=(
	"llvm-${LLVM_MAJOR}-dev" "libclang-${LLVM_MAJOR}-dev" "clang-${LLVM_MAJOR}" "lld-${LLVM_MAJOR}"
	"libclang-rt-${LLVM_MAJOR}-dev-wasm32" wasi-libc binaryen
)
# What Debian's packages provide, and TinyGo's cache is seeded with.
WASI_LIBC_A=/usr/lib/wasm32-wasi/libc.a
WASI_LIBC_INCLUDE=/usr/include/wasm32-wasi
LLVM_PREFIX="/usr/lib/llvm-${LLVM_MAJOR}"
COMPILER_RT_A="${LLVM_PREFIX}/lib/clang/${LLVM_MAJOR}/lib/wasi/libclang_rt.builtins-wasm32.a"

CACHE_DIR="${1:-${REPO_ROOT}/.cache/tinygo}"
mkdir -p "${CACHE_DIR}"
# The physical path: a worktree whose .cache links to another checkout's
# must not write its own path into files that outlive it.
CACHE_DIR="$(cd "${CACHE_DIR}" && pwd -P)"
BIN_DIR="${CACHE_DIR}/bin"
SRC_DIR="${CACHE_DIR}/tinygo-src"
XDG_DIR="${CACHE_DIR}/xdg"
SCRATCH_DIR="${CACHE_DIR}/scratch"
STAMP_FILE="${CACHE_DIR}/stamps/tinygo.version"
STAMP="${TINYGO_VERSION} ${TINYGO_GO}"
mkdir -p "${BIN_DIR}" "${XDG_DIR}" "${SCRATCH_DIR}" "$(dirname "${STAMP_FILE}")"

log() { printf '[tinygo] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=hack/apt.sh
source "${REPO_ROOT}/hack/apt.sh"

timed() {
	local start=$SECONDS
	"$@"
	log "$1 done in $((SECONDS - start))s"
}

# json_field FIELD: the string value of a top-level field of `go ... -json` output on stdin.
json_field() { sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" | head -n 1; }

# 1. Debian packages: LLVM/clang 19 libraries and tools, wasm-ld, the wasm32
#    compiler-rt builtins, wasi-libc and binaryen (wasm-opt).
install_packages() { apt_install "${APT_PACKAGES[@]}"; }

# 2. The Go toolchain TinyGo supports, fetched as a module by the go command.
GO_TOOLCHAIN_BIN=""
find_go_toolchain() {
	local modcache hostos hostarch
	modcache="$(GOTOOLCHAIN=local "${GO}" env GOMODCACHE)"
	hostos="$(GOTOOLCHAIN=local "${GO}" env GOHOSTOS)"
	hostarch="$(GOTOOLCHAIN=local "${GO}" env GOHOSTARCH)"
	GO_TOOLCHAIN_BIN="${modcache}/golang.org/toolchain@v0.0.1-${TINYGO_GO}.${hostos}-${hostarch}/bin"
	if [[ ! -x "${GO_TOOLCHAIN_BIN}/go" ]]; then
		log "go: fetching toolchain ${TINYGO_GO}"
		(cd "${SCRATCH_DIR}" && GOTOOLCHAIN="${TINYGO_GO}" "${GO}" version >/dev/null) ||
			die "could not fetch Go toolchain ${TINYGO_GO}"
	fi
	[[ -x "${GO_TOOLCHAIN_BIN}/go" ]] || die "no go command in ${GO_TOOLCHAIN_BIN}"
	log "go: $(GOTOOLCHAIN=local "${GO_TOOLCHAIN_BIN}/go" version) (${GO_TOOLCHAIN_BIN})"
}

# 3. TinyGo's source from the module proxy, built with that toolchain.
build_tinygo() {
	if [[ -x "${BIN_DIR}/tinygo" && -d "${SRC_DIR}/src/runtime" && -f "${STAMP_FILE}" &&
		"$(cat "${STAMP_FILE}")" == "${STAMP}" ]]; then
		log "tinygo ${TINYGO_VERSION}: up to date (${BIN_DIR}/tinygo)"
		return
	fi
	log "tinygo ${TINYGO_VERSION}: downloading github.com/tinygo-org/tinygo@v${TINYGO_VERSION}"
	[[ -f "${SCRATCH_DIR}/go.mod" ]] ||
		printf 'module caldera.invalid/tinygo-scratch\n\ngo 1.25\n' >"${SCRATCH_DIR}/go.mod"
	local moddir
	moddir="$(cd "${SCRATCH_DIR}" && GOTOOLCHAIN=local GOFLAGS=-mod=mod \
		"${GO}" mod download -json "github.com/tinygo-org/tinygo@v${TINYGO_VERSION}" | json_field Dir)" ||
		die "go mod download github.com/tinygo-org/tinygo@v${TINYGO_VERSION} failed"
	[[ -n "${moddir}" && -d "${moddir}" ]] || die "no module directory for tinygo v${TINYGO_VERSION}"

	# The module cache is read-only, and TinyGo wants to write next to its sources.
	rm -rf "${SRC_DIR}" "${STAMP_FILE}"
	cp -R "${moddir}" "${SRC_DIR}"
	chmod -R u+w "${SRC_DIR}"
	# src/net is a git submodule the module zip lacks; an empty package dir will do
	# for wasip1 (the net package is not available to guests).
	mkdir -p "${SRC_DIR}/src/net"

	log "tinygo: go build -tags llvm${LLVM_MAJOR} (cgo against ${LLVM_PREFIX})"
	(
		cd "${SRC_DIR}"
		export PATH="${GO_TOOLCHAIN_BIN}:${LLVM_PREFIX}/bin:${PATH}"
		export GOTOOLCHAIN=local CGO_ENABLED=1 GOFLAGS=-buildvcs=false
		go build -tags "llvm${LLVM_MAJOR}" -o "${BIN_DIR}/tinygo.tmp" .
	) || die "building tinygo failed"
	mv -f "${BIN_DIR}/tinygo.tmp" "${BIN_DIR}/tinygo"
	printf '%s\n' "${STAMP}" >"${STAMP_FILE}"
}

# 4. TinyGo skips building a C library whose lib.a is already in its cache; the
#    module lacks those libraries' sources (submodules), Debian has them built.
# seed_link TARGET LINK: LINK points at TARGET (replacing whatever was there).
seed_link() {
	local target=$1 link=$2
	[[ -e "${target}" ]] || die "missing ${target} (from the Debian packages)"
	if [[ -L "${link}" && "$(readlink "${link}")" == "${target}" ]]; then
		return
	fi
	mkdir -p "$(dirname "${link}")"
	rm -rf "${link}"
	ln -s "${target}" "${link}"
	log "cache: ${link#"${CACHE_DIR}/"} -> ${target}"
}

seed_cache() {
	local lib="${XDG_DIR}/tinygo"
	seed_link "${WASI_LIBC_A}" "${lib}/wasi-libc-wasm32-unknown-wasi-generic/lib.a"
	seed_link "${WASI_LIBC_INCLUDE}" "${lib}/wasi-libc-wasm32-unknown-wasi-generic/include"
	seed_link "${COMPILER_RT_A}" "${lib}/compiler-rt-wasm32-unknown-wasi-generic/lib.a"
}

# 5. The environment TinyGo runs in, as a wrapper command and as export lines.
write_wrapper() {
	local wrapper="${BIN_DIR}/tinygo-wrapped" env_file="${CACHE_DIR}/tinygo.env" tmp
	tmp="$(mktemp "${CACHE_DIR}/.env.XXXXXX")"
	{
		echo "# Generated by hack/tinygo.sh: the environment bin/tinygo runs in."
		printf 'export TINYGOROOT=%q\n' "${SRC_DIR}"
		printf 'export XDG_CACHE_HOME=%q\n' "${XDG_DIR}"
		echo 'export GOTOOLCHAIN=local'
		printf 'export PATH=%q:"${PATH}"\n' "${GO_TOOLCHAIN_BIN}"
	} >"${tmp}"
	chmod 0644 "${tmp}"
	mv -f "${tmp}" "${env_file}"

	tmp="$(mktemp "${BIN_DIR}/.wrapper.XXXXXX")"
	{
		echo '#!/usr/bin/env bash'
		echo "# Generated by hack/tinygo.sh: TinyGo ${TINYGO_VERSION} with its Go ${TINYGO_GO#go}"
		echo '# and library cache. Usage: tinygo-wrapped build -target=wasip1 ...'
		printf 'source %q\n' "${env_file}"
		printf 'exec %q "$@"\n' "${BIN_DIR}/tinygo"
	} >"${tmp}"
	chmod 0755 "${tmp}"
	mv -f "${tmp}" "${wrapper}"
	log "tinygo: $("${wrapper}" version)"
}

# 6. A sample reactor module built with TinyGo and, for comparison, with Go.
verify() {
	local dir magic size gosize
	dir="$(mktemp -d)"
	# shellcheck disable=SC2064
	trap "rm -rf '${dir}'" RETURN
	printf 'module caldera.invalid/tinygo-check\n\ngo 1.25\n' >"${dir}/go.mod"
	cat >"${dir}/main.go" <<'EOF'
package main

//go:wasmexport add
func add(a, b int32) int32 { return a + b }

func main() {}
EOF
	local start=$SECONDS
	(cd "${dir}" && "${BIN_DIR}/tinygo-wrapped" build -target=wasip1 -buildmode=c-shared \
		-scheduler=none -no-debug -o add.wasm .) || die "tinygo could not build the sample module"
	magic="$(head -c 4 "${dir}/add.wasm" | od -An -tx1 | tr -d ' \n')"
	[[ "${magic}" == 0061736d ]] || die "add.wasm is not a wasm module (starts with ${magic})"
	size="$(wc -c <"${dir}/add.wasm")"
	log "verify: tinygo reactor add.wasm ${size} bytes ($((SECONDS - start))s)"

	start=$SECONDS
	(cd "${dir}" && GOTOOLCHAIN=local GOOS=wasip1 GOARCH=wasm "${GO}" build -buildmode=c-shared \
		-o add-go.wasm .) || die "go could not build the sample module"
	gosize="$(wc -c <"${dir}/add-go.wasm")"
	log "verify: go $(GOTOOLCHAIN=local "${GO}" env GOVERSION) reactor add-go.wasm ${gosize} bytes ($((SECONDS - start))s)"
}

start=$SECONDS
timed install_packages
timed find_go_toolchain
timed build_tinygo
seed_cache
write_wrapper
if [[ "${TINYGO_VERIFY}" != 0 ]]; then
	timed verify
fi
log "ready in $((SECONDS - start))s. To build modules yourself: alias tinygo=${BIN_DIR}/tinygo-wrapped (it sets TinyGo's environment; or: source ${CACHE_DIR}/tinygo.env and run ${BIN_DIR}/tinygo)"

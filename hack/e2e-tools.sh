#!/usr/bin/env bash
# Builds, and caches, the real components the end-to-end suite runs against:
#   etcd, kube-apiserver, kube-controller-manager and kwok, all from Go modules
#   (no prebuilt downloads); kube-controller-manager runs only the PV binder
#   controller there, which completes the volume bindings the scheduler starts,
# and regenerates Volcano's PodGroup, Queue, HyperNode and Numatopology CRDs into deploy/crds/ from the
# volcano.sh/apis Go types with controller-gen; and Volcano's own
# vc-controller-manager and vc-scheduler from the volcano.sh/volcano module,
# with that release's CRD manifests; and the OCI registry of the distribution
# project, which serves Wasm modules pulled by wasm.image. On request it also builds
# kube-scheduler, the baseline of the end-to-end benchmark (make bench-e2e).
#
# Usage: hack/e2e-tools.sh [CACHE_DIR] [COMPONENT...]
#   CACHE_DIR   defaults to <repo>/.cache/e2e
#   COMPONENT   any of: etcd kube-apiserver kube-controller-manager kwok crds
#               volcano registry kube-scheduler
#               (default: all but kube-scheduler, which only the benchmark needs)
#
# Layout under CACHE_DIR:
#   bin/{etcd,kube-apiserver,kube-controller-manager}  the built binaries
#   bin/{kwok,controller-gen}
#   bin/{vc-controller-manager,vc-scheduler}         Volcano's, from volcano.sh/volcano
#   bin/registry                                     distribution's OCI registry
#   volcano-crds/*.yaml                              that release's CRD manifests
#   bin/kube-scheduler                               (only when asked for)
#   stamps/<name>.version                            the version each was built with
#   src/<name>/                                      generated wrapper Go modules
#                                                    (src/kubernetes builds
#                                                    kube-apiserver,
#                                                    kube-controller-manager and
#                                                    kube-scheduler)
#   kwok-stages.yaml                                 kwok stage configuration
#
# A binary is rebuilt only when it is missing or its stamp records another
# version. Versions come from the environment (the Makefile passes them).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

ETCD_VERSION="${ETCD_VERSION:-v3.5.35}"
KUBE_VERSION="${KUBE_VERSION:-v1.32.13}"
# module@version pairs used instead of a staging module's own release (see the Makefile).
KUBE_STAGING_SUBSTITUTES="${KUBE_STAGING_SUBSTITUTES-k8s.io/kube-scheduler@v0.33.13 k8s.io/csi-translation-lib@v0.33.13 k8s.io/endpointslice@v0.32.12}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
VOLCANO_VERSION="${VOLCANO_VERSION:-v1.10.0}"
CONTROLLER_TOOLS_VERSION="${CONTROLLER_TOOLS_VERSION:-v0.18.0}"
REGISTRY_VERSION="${REGISTRY_VERSION:-v3.1.2}"
GO="${GO:-go}"

CACHE_DIR="${1:-${REPO_ROOT}/.cache/e2e}"
[[ $# -gt 0 ]] && shift
COMPONENTS=("$@")
if [[ ${#COMPONENTS[@]} -eq 0 ]]; then
	COMPONENTS=(etcd kube-apiserver kube-controller-manager kwok crds volcano registry)
fi

mkdir -p "${CACHE_DIR}"
# The physical path: a worktree whose .cache links to another checkout's
# must not write its own path into files that outlive it.
CACHE_DIR="$(cd "${CACHE_DIR}" && pwd -P)"
BIN_DIR="${CACHE_DIR}/bin"
SRC_DIR="${CACHE_DIR}/src"
STAMP_DIR="${CACHE_DIR}/stamps"
CRD_DIR="${REPO_ROOT}/deploy/crds"
mkdir -p "${BIN_DIR}" "${SRC_DIR}" "${STAMP_DIR}"

# Use the installed Go; never switch toolchains behind our back.
export GOTOOLCHAIN=local
# Wrapper modules are resolved and edited on the fly.
MODFLAGS="-mod=mod -buildvcs=false"

log() { printf '[e2e-tools] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# up_to_date_stamp NAME VERSION: the stamp of NAME records VERSION.
up_to_date_stamp() {
	[[ -f "${STAMP_DIR}/$1.version" && "$(cat "${STAMP_DIR}/$1.version")" == "$2" ]]
}

# up_to_date NAME VERSION: binary NAME exists and was built with VERSION.
up_to_date() { [[ -x "${BIN_DIR}/$1" ]] && up_to_date_stamp "$1" "$2"; }

stamp() { printf '%s\n' "$2" >"${STAMP_DIR}/$1.version"; }

# json_field FIELD: the string value of a top-level field of `go ... -json` output on stdin.
json_field() { sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" | head -n 1; }

# mod_download MODULE@VERSION FIELD: downloads a module into the module cache
# (run from the current directory) and prints FIELD (Dir, GoMod, ...) of the answer.
mod_download() {
	local out
	out="$(GOFLAGS="${MODFLAGS}" "${GO}" mod download -json "$1")" || die "go mod download $1 failed"
	printf '%s\n' "${out}" | json_field "$2"
}

# new_wrapper NAME MODULE_PATH: a fresh wrapper module directory, printed.
new_wrapper() {
	local dir="${SRC_DIR}/$1"
	rm -rf "${dir}"
	mkdir -p "${dir}"
	(cd "${dir}" && "${GO}" mod init "$2" >/dev/null 2>&1) || die "go mod init in ${dir} failed"
	printf '%s\n' "${dir}"
}

# write_tools_go DIR IMPORT...: a build-tagged file importing the given packages,
# so that `go mod tidy` keeps their modules (main packages may be imported this way).
write_tools_go() {
	local dir=$1 pkg
	shift
	{
		echo '//go:build tools'
		echo
		echo '// Package tools pins the packages this wrapper module exists to build.'
		echo 'package tools'
		echo
		echo 'import ('
		for pkg in "$@"; do echo "	_ \"${pkg}\""; done
		echo ')'
	} >"${dir}/tools.go"
}

timed() {
	local start=$SECONDS
	"$@"
	log "$1 done in $((SECONDS - start))s"
}

build_etcd() {
	if up_to_date etcd "${ETCD_VERSION}"; then
		log "etcd ${ETCD_VERSION}: up to date (${BIN_DIR}/etcd)"
		return
	fi
	log "etcd ${ETCD_VERSION}: building from go.etcd.io/etcd/server/v3"
	local v2 minor dir m
	# client/v2 follows its own scheme: v3.5.35 -> v2.305.35.
	minor="${ETCD_VERSION#v3.}"
	minor="${minor%%.*}"
	v2="v2.3$(printf '%02d' "${minor}").${ETCD_VERSION##*.}"
	dir="$(new_wrapper etcd caldera.invalid/e2e-tools/etcd)"
	(
		cd "${dir}"
		# go install pkg@version refuses etcd's own replace directives, so pin
		# every etcd module to the release here instead.
		"${GO}" mod edit -require="go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
		for m in api/v3 client/pkg/v3 client/v3 pkg/v3 raft/v3 server/v3; do
			"${GO}" mod edit -replace="go.etcd.io/etcd/${m}=go.etcd.io/etcd/${m}@${ETCD_VERSION}"
		done
		"${GO}" mod edit -replace="go.etcd.io/etcd/client/v2=go.etcd.io/etcd/client/v2@${v2}"
		write_tools_go "${dir}" go.etcd.io/etcd/server/v3
		log "etcd: go mod tidy"
		GOFLAGS="${MODFLAGS}" "${GO}" mod tidy -e
		log "etcd: go build"
		GOFLAGS="${MODFLAGS}" "${GO}" build -o "${BIN_DIR}/etcd.tmp" go.etcd.io/etcd/server/v3
	)
	mv -f "${BIN_DIR}/etcd.tmp" "${BIN_DIR}/etcd"
	stamp etcd "${ETCD_VERSION}"
	log "etcd: $("${BIN_DIR}/etcd" --version | head -n 1)"
}

# prepare_kube_wrapper: creates KUBE_WRAPPER, the wrapper module that builds
# k8s.io/kubernetes commands at KUBE_VERSION, unless it exists for that
# version and those commands. kube-apiserver, kube-controller-manager and
# kube-scheduler share it, so all are built against exactly the same module
# graph.
KUBE_WRAPPER="${SRC_DIR}/kubernetes"
KUBE_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler)
prepare_kube_wrapper() {
	# The commands are part of the stamp: a wrapper tidied for fewer of them
	# lacks the modules of the others.
	local want="${KUBE_VERSION} ${KUBE_STAGING_SUBSTITUTES} commands: ${KUBE_COMMANDS[*]}"
	if [[ -f "${KUBE_WRAPPER}/go.sum" ]] && up_to_date_stamp kubernetes-wrapper "${want}"; then
		return
	fi
	# Staging modules (k8s.io/api, ...) are released as v0.<minor>.<patch>.
	local staging_version="v0.${KUBE_VERSION#v1.}"
	local dir kube_gomod staging m
	rm -f "${STAMP_DIR}/kubernetes-wrapper.version"
	dir="$(new_wrapper kubernetes caldera.invalid/e2e-tools/kubernetes)"
	(
		cd "${dir}"
		kube_gomod="$(mod_download "k8s.io/kubernetes@${KUBE_VERSION}" GoMod)"
		[[ -f "${kube_gomod}" ]] || die "no go.mod for k8s.io/kubernetes@${KUBE_VERSION}"
		# k8s.io/kubernetes points every staging module at ./staging/src/...; map
		# each of them to its published release instead.
		staging="$(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }
			$1 == "replace" && $3 == "=>" && $4 ~ /^\.\/staging\// { print $2 }' "${kube_gomod}" | sort -u)"
		[[ -n "${staging}" ]] || die "found no staging replace lines in ${kube_gomod}"
		log "kubernetes: $(wc -w <<<"${staging}") staging modules at ${staging_version}"
		"${GO}" mod edit -require="k8s.io/kubernetes@${KUBE_VERSION}"
		for m in ${staging}; do
			"${GO}" mod edit -replace="${m}=${m}@${staging_version}"
		done
		# Releases the module proxy does not serve, replaced by a neighbour.
		for m in ${KUBE_STAGING_SUBSTITUTES}; do
			log "kubernetes: ${m%@*} at ${m#*@} instead of ${staging_version}"
			"${GO}" mod edit -replace="${m%@*}=${m}"
		done
		write_tools_go "${dir}" "${KUBE_COMMANDS[@]/#/k8s.io/kubernetes/cmd/}"
		log "kubernetes: go mod tidy -e (a test-only module may be unavailable; that is fine)"
		GOFLAGS="${MODFLAGS}" "${GO}" mod tidy -e
	)
	stamp kubernetes-wrapper "${want}"
}

# build_kube_command NAME: k8s.io/kubernetes/cmd/NAME at KUBE_VERSION, with the
# version stamped in as a release build does, so that --version reports it.
build_kube_command() {
	local name=$1 major minor ldflags
	if up_to_date "${name}" "${KUBE_VERSION}"; then
		log "${name} ${KUBE_VERSION}: up to date (${BIN_DIR}/${name})"
		return
	fi
	log "${name} ${KUBE_VERSION}: building from k8s.io/kubernetes"
	prepare_kube_wrapper
	major="${KUBE_VERSION#v}"
	major="${major%%.*}"
	minor="${KUBE_VERSION#v*.}"
	minor="${minor%%.*}"
	ldflags="-X k8s.io/component-base/version.gitVersion=${KUBE_VERSION}"
	ldflags+=" -X k8s.io/component-base/version.gitMajor=${major}"
	ldflags+=" -X k8s.io/component-base/version.gitMinor=${minor}"
	ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
	ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=${KUBE_VERSION}"
	ldflags+=" -X k8s.io/client-go/pkg/version.gitMajor=${major}"
	ldflags+=" -X k8s.io/client-go/pkg/version.gitMinor=${minor}"
	ldflags+=" -X k8s.io/client-go/pkg/version.gitTreeState=clean"
	log "${name}: go build (several minutes)"
	(
		cd "${KUBE_WRAPPER}"
		GOFLAGS="${MODFLAGS}" "${GO}" build -ldflags "${ldflags}" \
			-o "${BIN_DIR}/${name}.tmp" "k8s.io/kubernetes/cmd/${name}"
	)
	mv -f "${BIN_DIR}/${name}.tmp" "${BIN_DIR}/${name}"
	stamp "${name}" "${KUBE_VERSION}"
	log "${name}: $("${BIN_DIR}/${name}" --version)"
}

# KEEP_RUNNING_LABEL on a pod keeps kwok from completing it although a Job
# owns it: the e2e tests whose Volcano Jobs must stay running (queues,
# reclaim, preemption) put it in their pod templates.
KEEP_RUNNING_LABEL="e2e.caldera.dev/keep-running"

# keep_running_pods adds to the pod-complete stage on stdin, after its
# selector on Job-owned pods, that the pod must not carry KEEP_RUNNING_LABEL.
keep_running_pods() {
	awk -v label="${KEEP_RUNNING_LABEL}" '
		/^  name: pod-complete$/ { stage = 1 }
		{ print }
		stage && /^      - .Job.$/ {
			printf "    - key: %c.metadata.labels[\"%s\"]%c\n", 39, label, 39
			print "      operator: '"'"'DoesNotExist'"'"'"
			stage = 0
		}'
}

build_kwok() {
	local stages="${CACHE_DIR}/kwok-stages.yaml"
	if up_to_date kwok "${KWOK_VERSION}" && [[ -s "${stages}" ]] && grep -q "${KEEP_RUNNING_LABEL}" "${stages}"; then
		log "kwok ${KWOK_VERSION}: up to date (${BIN_DIR}/kwok, ${stages})"
		return
	fi
	local dir moddir f
	dir="${SRC_DIR}/kwok"
	mkdir -p "${dir}"
	if ! up_to_date kwok "${KWOK_VERSION}"; then
		log "kwok ${KWOK_VERSION}: go install sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
		(
			# Outside any module: go install pkg@version resolves on its own.
			cd "${dir}"
			GOFLAGS=-buildvcs=false GOBIN="${BIN_DIR}" "${GO}" install "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
		)
	fi
	log "kwok: writing stage configuration ${stages}"
	moddir="$(cd "${dir}" && mod_download "sigs.k8s.io/kwok@${KWOK_VERSION}" Dir)"
	[[ -d "${moddir}/kustomize/stage" ]] || die "no kustomize/stage in ${moddir}"
	{
		local first=1
		for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
			pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
			[[ -f "${moddir}/kustomize/stage/${f}" ]] || die "missing stage file ${f} in ${moddir}"
			if [[ ${first} -eq 0 ]]; then echo '---'; fi
			first=0
			# Drop a leading document separator so there is exactly one between files.
			sed '1{/^---[[:space:]]*$/d;}' "${moddir}/kustomize/stage/${f}"
		done
	} | keep_running_pods >"${stages}.tmp"
	grep -q "${KEEP_RUNNING_LABEL}" "${stages}.tmp" || die "could not add the ${KEEP_RUNNING_LABEL} exception to kwok's pod-complete stage"
	mv -f "${stages}.tmp" "${stages}"
	stamp kwok "${KWOK_VERSION}"
	log "kwok: $("${BIN_DIR}/kwok" --version 2>&1 | head -n 1)"
}

build_controller_gen() {
	if up_to_date controller-gen "${CONTROLLER_TOOLS_VERSION}"; then
		log "controller-gen ${CONTROLLER_TOOLS_VERSION}: up to date"
		return
	fi
	log "controller-gen ${CONTROLLER_TOOLS_VERSION}: go install sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_TOOLS_VERSION}"
	mkdir -p "${SRC_DIR}/controller-gen"
	(
		cd "${SRC_DIR}/controller-gen"
		GOFLAGS=-buildvcs=false GOBIN="${BIN_DIR}" "${GO}" install \
			"sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_TOOLS_VERSION}"
	)
	stamp controller-gen "${CONTROLLER_TOOLS_VERSION}"
}

generate_crds() {
	build_controller_gen
	# The CRDs follow the volcano.sh/apis version the scheduler itself is built against.
	local apis_version dir out crd
	apis_version="${VOLCANO_APIS_VERSION:-$(cd "${REPO_ROOT}" && GOFLAGS=-mod=readonly "${GO}" list -m -f '{{.Version}}' volcano.sh/apis)}"
	[[ -n "${apis_version}" ]] || die "cannot tell the volcano.sh/apis version from go.mod"
	log "crds: PodGroup, Queue, HyperNode and Numatopology from volcano.sh/apis ${apis_version} with controller-gen ${CONTROLLER_TOOLS_VERSION}"
	dir="$(new_wrapper crds caldera.invalid/e2e-tools/crds)"
	out="${dir}/out"
	(
		cd "${dir}"
		"${GO}" mod edit -require="volcano.sh/apis@${apis_version}"
		write_tools_go "${dir}" volcano.sh/apis/pkg/apis/scheduling/v1beta1 volcano.sh/apis/pkg/apis/topology/v1alpha1 \
			volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1
		GOFLAGS="${MODFLAGS}" "${GO}" mod tidy
		GOFLAGS="${MODFLAGS}" "${BIN_DIR}/controller-gen" \
			crd:crdVersions=v1 \
			paths=volcano.sh/apis/pkg/apis/scheduling/v1beta1 \
			paths=volcano.sh/apis/pkg/apis/topology/v1alpha1 \
			paths=volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1 \
			output:crd:dir="${out}"
	)
	mkdir -p "${CRD_DIR}"
	local pkg
	for crd in scheduling.volcano.sh_podgroups.yaml scheduling.volcano.sh_queues.yaml topology.volcano.sh_hypernodes.yaml \
		nodeinfo.volcano.sh_numatopologies.yaml; do
		[[ -s "${out}/${crd}" ]] || die "controller-gen did not write ${crd}"
		case "${crd}" in
		topology.*) pkg=pkg/apis/topology/v1alpha1 ;;
		nodeinfo.*) pkg=pkg/apis/nodeinfo/v1alpha1 ;;
		*) pkg=pkg/apis/scheduling/v1beta1 ;;
		esac
		{
			echo "# Generated by hack/e2e-tools.sh (make crds) from volcano.sh/apis ${apis_version}"
			echo "# (${pkg}) with controller-gen ${CONTROLLER_TOOLS_VERSION}. DO NOT EDIT."
			cat "${out}/${crd}"
		} >"${CRD_DIR}/${crd}"
		log "crds: wrote deploy/crds/${crd}"
	done
}

# build_volcano: vc-controller-manager and vc-scheduler from volcano.sh/volcano
# at VOLCANO_VERSION, and the CRDs of that release that its controllers read
# and write (config/crd/volcano/bases and config/crd/jobflow/bases: Jobs,
# Commands, JobFlows, JobTemplates, Numatopologies, PodGroups, Queues).
# go build refuses the release's own replace directives from a dependency,
# so a wrapper module repeats them.
build_volcano() {
	local dir="${SRC_DIR}/volcano"
	if up_to_date vc-controller-manager "${VOLCANO_VERSION}" && up_to_date vc-scheduler "${VOLCANO_VERSION}"; then
		log "volcano ${VOLCANO_VERSION}: up to date (${BIN_DIR}/vc-controller-manager, vc-scheduler)"
	else
		log "volcano ${VOLCANO_VERSION}: building from volcano.sh/volcano"
		local gomod line
		dir="$(new_wrapper volcano caldera.invalid/e2e-tools/volcano)"
		(
			cd "${dir}"
			gomod="$(mod_download "volcano.sh/volcano@${VOLCANO_VERSION}" GoMod)"
			[[ -f "${gomod}" ]] || die "no go.mod for volcano.sh/volcano@${VOLCANO_VERSION}"
			"${GO}" mod edit -require="volcano.sh/volcano@${VOLCANO_VERSION}"
			# Each "old => new version" line of the release's replace block.
			while read -r line; do
				"${GO}" mod edit -replace="${line}"
			done < <(awk '/^replace \($/ { inside = 1; next }
				inside && /^\)$/ { inside = 0 }
				inside && $2 == "=>" && NF == 4 { print $1 "=" $3 "@" $4 }
				$1 == "replace" && $3 == "=>" && NF == 5 { print $2 "=" $4 "@" $5 }' "${gomod}")
			write_tools_go "${dir}" volcano.sh/volcano/cmd/controller-manager volcano.sh/volcano/cmd/scheduler
			log "volcano: go mod tidy -e"
			GOFLAGS="${MODFLAGS}" "${GO}" mod tidy -e
			log "volcano: go build (several minutes)"
			GOFLAGS="${MODFLAGS}" "${GO}" build -o "${BIN_DIR}/vc-controller-manager.tmp" volcano.sh/volcano/cmd/controller-manager
			GOFLAGS="${MODFLAGS}" "${GO}" build -o "${BIN_DIR}/vc-scheduler.tmp" volcano.sh/volcano/cmd/scheduler
		)
		mv -f "${BIN_DIR}/vc-controller-manager.tmp" "${BIN_DIR}/vc-controller-manager"
		mv -f "${BIN_DIR}/vc-scheduler.tmp" "${BIN_DIR}/vc-scheduler"
		stamp vc-controller-manager "${VOLCANO_VERSION}"
		stamp vc-scheduler "${VOLCANO_VERSION}"
	fi
	local crds="${CACHE_DIR}/volcano-crds" moddir sub
	if [[ -d "${crds}" ]] && up_to_date_stamp volcano-crds "${VOLCANO_VERSION}"; then
		return
	fi
	mkdir -p "${dir}"
	[[ -f "${dir}/go.mod" ]] || (cd "${dir}" && "${GO}" mod init caldera.invalid/e2e-tools/volcano >/dev/null 2>&1)
	moddir="$(cd "${dir}" && mod_download "volcano.sh/volcano@${VOLCANO_VERSION}" Dir)"
	rm -rf "${crds}"
	mkdir -p "${crds}"
	for sub in volcano jobflow; do
		[[ -d "${moddir}/config/crd/${sub}/bases" ]] || die "no config/crd/${sub}/bases in ${moddir}"
		cp "${moddir}/config/crd/${sub}/bases"/*.yaml "${crds}/"
	done
	chmod u+w "${crds}"/*.yaml
	stamp volcano-crds "${VOLCANO_VERSION}"
	log "volcano: $(ls "${crds}" | wc -l) CRDs in ${crds}"
}

# build_registry builds the distribution project's registry, the reference
# implementation of the OCI distribution API, from its Go module.
build_registry() {
	if up_to_date registry "${REGISTRY_VERSION}"; then
		log "registry ${REGISTRY_VERSION}: up to date (${BIN_DIR}/registry)"
		return
	fi
	local dir="${SRC_DIR}/registry"
	mkdir -p "${dir}"
	log "registry ${REGISTRY_VERSION}: go install github.com/distribution/distribution/v3/cmd/registry@${REGISTRY_VERSION}"
	(
		# Outside any module: go install pkg@version resolves on its own.
		cd "${dir}"
		GOFLAGS=-buildvcs=false GOBIN="${BIN_DIR}" "${GO}" install "github.com/distribution/distribution/v3/cmd/registry@${REGISTRY_VERSION}"
	)
	stamp registry "${REGISTRY_VERSION}"
	log "registry: $("${BIN_DIR}/registry" --version 2>&1 | head -n 1)"
}

for component in "${COMPONENTS[@]}"; do
	case "${component}" in
	etcd) timed build_etcd ;;
	kube-apiserver | kube-controller-manager | kube-scheduler) timed build_kube_command "${component}" ;;
	kwok) timed build_kwok ;;
	crds) timed generate_crds ;;
	volcano) timed build_volcano ;;
	registry) timed build_registry ;;
	*) die "unknown component '${component}' (want etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, crds, volcano or registry)" ;;
	esac
done
log "done; binaries in ${BIN_DIR}"

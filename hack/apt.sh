# Sourced by the toolchain scripts (tinygo.sh, rust.sh), which define log and
# die first.

# apt_install PACKAGE...: installs the Debian packages that are not installed
# yet, as root or through sudo; a no-op when all are.
apt_install() {
	local missing=() p status
	for p in "$@"; do
		status="$(dpkg-query -W -f='${db:Status-Status}' "${p}" 2>/dev/null || true)"
		[[ "${status}" == installed ]] || missing+=("${p}")
	done
	if [[ ${#missing[@]} -eq 0 ]]; then
		log "packages: all installed ($*)"
		return
	fi
	log "packages: installing ${missing[*]}"
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null || die "not root and no sudo: install ${missing[*]} by hand"
		sudo=(sudo)
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

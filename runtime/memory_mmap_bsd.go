//go:build darwin || freebsd

package runtime

// mapNoReserve: these kernels do not commit anonymous mappings up front.
const mapNoReserve = 0

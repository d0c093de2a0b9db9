package runtime

import "syscall"

// mapNoReserve: reserving a module's maximum must not count against the
// kernel's overcommit accounting until pages are touched.
const mapNoReserve = syscall.MAP_NORESERVE

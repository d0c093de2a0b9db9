// Package caldera is the Go SDK for Caldera scheduling policies compiled to
// WebAssembly. An author implements the hook interfaces a policy needs on
// one type, registers it in main, and builds with either toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o policy.wasm .
//	tinygo build -target=wasip1 -buildmode=c-shared -scheduler=none -no-debug -opt=2 -o policy.wasm .
//
// The SDK speaks the ABI (docs/abi.md in the Caldera repository): it exports
// the module's entry points, decodes the session's view once per session,
// applies the events the scheduler forwards so the view stays current, and
// encodes the replies. Author code sees plain Go values, never pointers into
// memory or bytes.
package caldera

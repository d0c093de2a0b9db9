package runtime

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// A guest's runtime reports a panic by printing it and then trapping: Go
// prints "panic: msg" and a goroutine trace of a line pair per frame,
// TinyGo prints "panic: msg" alone, Rust's std prints "thread '…' panicked
// at file:line:col:" and the message. Logged line by line that is dozens
// of records beside the trap's own, and the rate limit drops the end of
// it. From a line that starts a panic to the end of the call the output
// is therefore held, at most maxPanicLines lines, and when the call traps
// it becomes the failure's message: the panic's message, its place and the
// frames of the module's own code. A call that returns normally after
// such a line (a module printing "panic: " for its own reasons) has the
// lines logged as usual.
const (
	maxPanicLines  = 200
	maxPanicFrames = 8
)

// panicStart reports whether a line opens a runtime's panic report.
func panicStart(line []byte) bool {
	return bytes.HasPrefix(line, []byte("panic: ")) ||
		bytes.HasPrefix(line, []byte("fatal error: ")) ||
		(bytes.HasPrefix(line, []byte("thread '")) && bytes.Contains(line, []byte("' panicked at ")))
}

// panicError is the trap err rewritten with the panic report the guest
// printed; module is the module's name in its name section, which prefixes
// the frames of wazero's trace.
func panicError(report []string, err error, module string) error {
	msg, frames := goPanic(report)
	if msg == "" {
		msg = rustPanic(report)
	}
	if frames == nil {
		frames = wasmFrames(err.Error(), module)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %s", ErrTrap, msg)
	for i, f := range frames {
		if i == maxPanicFrames {
			fmt.Fprintf(&b, "\n\t... %d more frames", len(frames)-i)
			break
		}
		b.WriteString("\n\tat ")
		b.WriteString(f)
	}
	return &guestPanic{msg: b.String()}
}

// guestPanic is a trap the guest's runtime explained.
type guestPanic struct{ msg string }

func (e *guestPanic) Error() string { return e.msg }
func (e *guestPanic) Unwrap() error { return ErrTrap }

// goPanic reads Go's and TinyGo's report: the message (with the lines
// that continue it) and, from a goroutine trace, the frames outside the
// runtime as "function (file.go:line)". It returns "" when the report is
// not Go's.
func goPanic(report []string) (msg string, frames []string) {
	if len(report) == 0 || !(strings.HasPrefix(report[0], "panic: ") || strings.HasPrefix(report[0], "fatal error: ")) {
		return "", nil
	}
	// The message, and the lines that continue it, end at a blank line;
	// the trace of the panicking goroutine follows its header, frames
	// being "pkg.Func(args)" then "\tfile:line +0xoff", up to a blank line.
	// A runtime frame or a created-by line is skipped.
	msg = report[0]
	i := 1
	for ; i < len(report) && report[i] != ""; i++ {
		msg += "; " + strings.TrimSpace(report[i])
	}
	for i < len(report) && !strings.HasPrefix(report[i], "goroutine ") {
		i++
	}
	for i++; i+1 < len(report) && report[i] != ""; i += 2 {
		fn, at := withoutArguments(report[i]), strings.TrimSpace(report[i+1])
		if at, _, _ = strings.Cut(at, " +0x"); strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "created by ") {
			continue
		}
		frames = append(frames, fmt.Sprintf("%s (%s)", fn, path.Base(at)))
	}
	return msg, untilSDK(frames)
}

// rustPanic reads the std panic hook's report: "thread 'x' panicked at
// place:" and the message lines, up to the backtrace note.
func rustPanic(report []string) string {
	if len(report) == 0 {
		return ""
	}
	_, place, _ := strings.Cut(report[0], "' panicked at ")
	place = strings.TrimSuffix(place, ":")
	var lines []string
	for _, l := range report[1:] {
		if strings.HasPrefix(l, "note: run with `RUST_BACKTRACE") {
			break
		}
		lines = append(lines, l)
	}
	return fmt.Sprintf("panic at %s: %s", place, strings.Join(lines, "; "))
}

// wasmFrames takes the frames of wazero's trace in a trap's message:
// tab-indented "module.function(params) results" lines, each maybe
// followed by its source lines (DWARF), indented twice. The module's
// prefix, the signature and the runtimes' own frames are dropped.
func wasmFrames(trap, module string) []string {
	_, trace, ok := strings.Cut(trap, "wasm stack trace:\n")
	if !ok {
		return nil
	}
	var frames []string
	for _, line := range strings.Split(trace, "\n") {
		if !strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "\t\t") {
			continue
		}
		fn := strings.TrimPrefix(strings.TrimSpace(line), module+".")
		if i := strings.LastIndexByte(fn, ')'); i >= 0 {
			fn = withoutArguments(fn[:i+1])
		}
		fn = demangleRust(fn)
		if !runtimeFrame(fn) {
			frames = append(frames, fn)
		}
	}
	return untilSDK(frames)
}

// untilSDK keeps the frames up to the first of the SDK's, which is the
// dispatch of the hook: those outside it are the SDK's and the export's.
// When the SDK's is the first, the compiler inlined the hook's code into
// it (TinyGo does, with every function the hook alone calls), and the
// frame says so.
func untilSDK(frames []string) []string {
	for i, f := range frames {
		if !sdkFrame(f) {
			continue
		}
		if i == 0 {
			frames[0] += ", the SDK's dispatch of the hook, into which the compiler inlined the hook's code"
		}
		return frames[:i+1]
	}
	return frames
}

// sdkFrame reports whether a function is one of Caldera's guest SDKs'.
func sdkFrame(fn string) bool {
	return strings.Contains(fn, "caldera/guest-sdk/go") || strings.Contains(fn, "caldera_guest_sdk_go") || strings.Contains(fn, "caldera::")
}

// demangleRust reads a symbol in rustc's legacy mangling, which the name
// section of a Rust module holds: "_ZN" (length, identifier)... "E", the
// last identifier a hash. "_ZN4core9panicking9panic_fmt17h9ec1c8305a7da9aeE"
// is core::panicking::panic_fmt. Other names are returned as they are.
func demangleRust(sym string) string {
	rest, ok := strings.CutPrefix(sym, "_ZN")
	if !ok || !strings.HasSuffix(rest, "E") {
		return sym
	}
	var parts []string
	for rest != "E" {
		n := 0
		for len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9' {
			n = n*10 + int(rest[0]-'0')
			rest = rest[1:]
		}
		if n == 0 || n > len(rest)-1 {
			return sym
		}
		parts = append(parts, rest[:n])
		rest = rest[n:]
	}
	if last := parts[len(parts)-1]; len(last) == 17 && last[0] == 'h' {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		parts[i] = unescapeRust(p)
	}
	return strings.Join(parts, "::")
}

// rustEscapes are the legacy mangling's escapes of characters an
// identifier cannot hold; "$uXX$" escapes any other by its hex code.
var rustEscapes = strings.NewReplacer("$LT$", "<", "$GT$", ">", "$RF$", "&", "$BP$", "*", "$C$", ",", "$SP$", "@", "$LP$", "(", "$RP$", ")", "..", "::")

func unescapeRust(id string) string {
	if strings.HasPrefix(id, "_$") {
		id = id[1:]
	}
	id = rustEscapes.Replace(id)
	var b strings.Builder
	for {
		i := strings.Index(id, "$u")
		if i < 0 {
			break
		}
		j := strings.IndexByte(id[i+2:], '$')
		if j < 0 {
			break
		}
		r, err := strconv.ParseUint(id[i+2:i+2+j], 16, 32)
		if err != nil {
			break
		}
		b.WriteString(id[:i])
		b.WriteRune(rune(r))
		id = id[i+3+j:]
	}
	b.WriteString(id)
	return b.String()
}

// runtimeFrame reports whether a function is the language runtime's or
// its panic machinery's, not the module author's or the SDK's.
func runtimeFrame(fn string) bool {
	for _, p := range []string{"runtime.", "std::", "core::", "alloc::", "panic_abort::", "__rust", "rust_begin_unwind", "rust_panic", "wasm_pc_f_loop", "_rt0_wasm", "abort"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// withoutArguments cuts the last parenthesised group off a call: Go's
// trace line "main.(*p).f(0x1, {0x2, 0x3})" becomes "main.(*p).f".
func withoutArguments(call string) string {
	call = strings.TrimSpace(call)
	if !strings.HasSuffix(call, ")") {
		return call
	}
	depth := 0
	for i := len(call) - 1; i >= 0; i-- {
		switch call[i] {
		case ')', '}':
			depth++
		case '(', '{':
			depth--
		}
		if depth == 0 {
			return call[:i]
		}
	}
	return call
}

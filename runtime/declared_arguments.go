package runtime

import (
	"strings"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// checkDeclaredArguments reads each argument the module declares, when
// the configuration gives it, with the native plugins' readers. A value of
// the wrong type is then refused when the configuration is loaded, in
// every mode (a one-shot simulate as much as a reload's self-test) and in
// the words a native plugin's refusal uses, rather than by the module at
// its first session_open, where it would leave every pod pending.
func checkDeclaredArguments(declared []abi.Argument, args framework.Arguments) error {
	for _, d := range declared {
		for _, key := range declaredKeys(d.Name, args) {
			var err error
			switch d.Type {
			case abiArgBool:
				var v bool
				err = args.Bool(key, &v)
			case abiArgInt:
				var v int
				err = args.Int(key, &v)
			case abiArgFloat:
				var v float64
				err = args.Float64(key, &v)
			case abiArgString:
				var v string
				err = args.String(key, &v)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// The argument types a descriptor may declare (docs/abi.md section 7).
const (
	abiArgBool   = "bool"
	abiArgInt    = "int"
	abiArgFloat  = "float"
	abiArgString = "string"
)

// declaredKeys lists the configuration's keys a declared name covers: the
// name itself, or for a family named with a placeholder
// ("binpack.resources.<name>") every key that fills the placeholder.
func declaredKeys(name string, args framework.Arguments) []string {
	open, close := strings.Index(name, "<"), strings.Index(name, ">")
	if open < 0 || close < open {
		if _, ok := args[name]; ok {
			return []string{name}
		}
		return nil
	}
	prefix, suffix := name[:open], name[close+1:]
	var keys []string
	for key := range args {
		if len(key) > len(prefix)+len(suffix) && strings.HasPrefix(key, prefix) && strings.HasSuffix(key, suffix) {
			keys = append(keys, key)
		}
	}
	return keys
}

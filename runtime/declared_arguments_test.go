package runtime

import (
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestDeclaredArgumentsAreReadAsTheirTypes(t *testing.T) {
	declared := []abi.Argument{
		{Name: "p.on", Type: "bool"}, {Name: "p.n", Type: "int"}, {Name: "p.f", Type: "float"},
		{Name: "p.s", Type: "string"}, {Name: "p.w.<name>", Type: "int"}, {Name: "p.any", Type: "list"},
	}
	ok := framework.Arguments{"p.on": "yes", "p.n": "3", "p.f": 1, "p.s": "x", "p.w.gpu": 2.0, "p.any": []any{1}, "other": "free"}
	if err := checkDeclaredArguments(declared, ok); err != nil {
		t.Errorf("accepted values refused: %v", err)
	}
	for key, value := range map[string]any{"p.on": "maybe", "p.n": "three", "p.f": "wide", "p.s": 4, "p.w.gpu": "lots"} {
		err := checkDeclaredArguments(declared, framework.Arguments{key: value})
		if err == nil || !strings.Contains(err.Error(), `argument "`+key+`": expected`) {
			t.Errorf("%s: %v: %v, want the native reader's refusal", key, value, err)
		}
	}
	// The family's prefix alone is not a member.
	if err := checkDeclaredArguments(declared, framework.Arguments{"p.w.": "x"}); err != nil {
		t.Errorf("an empty placeholder was read as a member: %v", err)
	}
}

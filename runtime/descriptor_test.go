package runtime

import (
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
)

// TestDescriptorFieldsAHostDoesNotKnowAreIgnored pins what docs/abi.md
// promises for optional descriptor fields such as localKeys: a host that
// predates a field loads the module as if the field were absent.
func TestDescriptorFieldsAHostDoesNotKnowAreIgnored(t *testing.T) {
	raw, err := msgpack.Marshal(map[string]any{
		"name": "p", "abi": []int{1, 1}, "hooks": []string{"session_open"},
		"aFieldOfANewerSDK": map[string]any{"x": []int{1, 2}}, "localKeys": true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var d abi.Descriptor
	if err := msgpack.Unmarshal(raw, &d); err != nil {
		t.Fatalf("a descriptor with a field this host does not know: %v", err)
	}
	if d.Name != "p" || len(d.Hooks) != 1 || !d.LocalKeys {
		t.Fatalf("decoded %+v", d)
	}
}

package caldera

import "testing"

func TestKeysTellConstraintsApart(t *testing.T) {
	in := NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a", "b"}}}}
	asField := NodeSelectorTerm{MatchFields: in.MatchExpressions}
	split := NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"ab"}}}}
	invalid := in
	invalid.Invalid = true
	keys := map[string]string{}
	for name, k := range map[string][]byte{
		"in":        in.AppendKey(nil),
		"as field":  asField.AppendKey(nil),
		"split":     split.AppendKey(nil),
		"invalid":   invalid.AppendKey(nil),
		"tolerates": AppendTolerationsKey(nil, []Toleration{{Key: "gpu", Operator: "Exists"}}),
		"none":      AppendTolerationsKey(nil, nil),
	} {
		if other, ok := keys[string(k)]; ok {
			t.Errorf("%s and %s encode to the same key", name, other)
		}
		keys[string(k)] = name
	}
	again := in
	if string(again.AppendKey(nil)) != string(in.AppendKey(nil)) {
		t.Error("equal terms encode differently")
	}
}

func TestByKeyFindsWhatWasPut(t *testing.T) {
	var b ByKey[int]
	if _, ok := b.Get([]byte("a")); ok {
		t.Fatal("found a value in an empty ByKey")
	}
	b.Put([]byte("a"), 1)
	b.Put([]byte("b"), 2)
	key := []byte("a")
	for i, want := range []int{1, 1} {
		if v, ok := b.Get(key); !ok || v != want {
			t.Fatalf("lookup %d of a: %d %v", i, v, ok)
		}
	}
	// The caller reuses its key buffer: what ByKey remembers must not change with it.
	key[0] = 'b'
	if v, ok := b.Get(key); !ok || v != 2 {
		t.Fatalf("b: %d %v", v, ok)
	}
	if _, ok := b.Get([]byte("c")); ok {
		t.Fatal("found c")
	}
}

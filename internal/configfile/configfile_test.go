package configfile

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every way of giving nothing reads as nothing: no document, no section.
func TestEmptyAndNullGiveNothing(t *testing.T) {
	for name, text := range map[string]string{
		"empty":       "",
		"comments":    "# nothing here\n# nor here\n",
		"null":        "null\n",
		"tilde":       "~\n",
		"blank lines": "\n\n",
	} {
		doc, err := Document([]byte(text), "f.yaml")
		if err != nil || doc != nil {
			t.Errorf("%s: Document = %v, %v; want nil, nil", name, doc, err)
		}
	}
	for _, raw := range []string{"", " ", "null", " null\n"} {
		out := struct{ A int }{A: 7}
		given, err := Section(json.RawMessage(raw), &out)
		if given || err != nil || out.A != 7 {
			t.Errorf("Section(%q) = %v, %v, A=%d; want false, nil and the default kept", raw, given, err, out.A)
		}
	}
}

func TestDocumentRefusals(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"second document":   {"a: 1\n---\nb: 2\n", "f.yaml:2: a second YAML document"},
		"key twice":         {"a: 1\nb:\n  c: 1\n  c: 2\n", "f.yaml:4: b.c: given twice (first on line 3)"},
		"key twice in list": {"l:\n- x: 1\n  x: 2\n", "f.yaml:3: l[0].x: given twice"},
		"bad yaml":          {"a: [", "f.yaml: invalid YAML"},
		"laughs": {`a: &a ["x","x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]
`, "expands to more than 1048576 values"},
	} {
		_, err := Document([]byte(tc.text), "f.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// Aliases read as the values they name, in a document and in its JSON.
func TestAliasesAreExpanded(t *testing.T) {
	doc, err := Document([]byte("base: &b {x: 1, y: [a, b]}\ncopy: *b\n"), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := JSON(doc, "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"base":{"x":1,"y":["a","b"]},"copy":{"x":1,"y":["a","b"]}}`; string(raw) != want {
		t.Errorf("JSON = %s, want %s", raw, want)
	}
}

func TestJSONScalars(t *testing.T) {
	doc, err := Document([]byte("s: text\nq: \"1\"\ni: 12\nf: 1.5\nb: true\nn: null\nt: 2026-11-28\nyes: yes\n"), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := JSON(doc, "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.2: "yes" is a string, as in the scheduler configuration.
	if want := `{"b":true,"f":1.5,"i":12,"n":null,"q":"1","s":"text","t":"2026-11-28","yes":"yes"}`; string(raw) != want {
		t.Errorf("JSON = %s, want %s", raw, want)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"infinite": {"a:\n  b: .inf\n", "f.yaml:2: a.b: .inf is not a finite number"},
		"list key": {"? [a, b]\n: 1\n", "a mapping key must be a plain value"},
	} {
		doc, err := Document([]byte(tc.text), "f.yaml")
		if err == nil {
			_, err = JSON(doc, "f.yaml")
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
}

func TestSectionIsStrict(t *testing.T) {
	type named struct {
		Name string `json:"name"`
	}
	type conf struct {
		Path  string  `json:"path"`
		Inner named   `json:"inner"`
		List  []named `json:"list"`
	}
	for raw, want := range map[string]string{
		`{"path": "a", "paht": "b"}`:  `unknown field "paht"`,
		`{"path": "a"} {"path": "b"}`: "more than one value",
		`{"path": 3}`:                 "cannot unmarshal number",
		`{"Path": "a"}`:               `unknown field "Path" (did you mean "path"?`,
		`{"inner": {"Name": "x"}}`:    `unknown field "inner.Name" (did you mean "name"?`,
		`{"list": [{"NAME": "x"}]}`:   `unknown field "list[0].NAME"`,
	} {
		var c conf
		given, err := Section(json.RawMessage(raw), &c)
		if !given || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Section(%s) = %v, %v; want given and an error containing %q", raw, given, err, want)
		}
	}
	var c conf
	if given, err := Section(json.RawMessage(`{"path": "a"}`), &c); !given || err != nil || c.Path != "a" {
		t.Errorf("Section = %v, %v, %+v", given, err, c)
	}
}

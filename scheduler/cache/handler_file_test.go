package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --event-handler-config is as strict as the scheduler configuration: a key
// given twice, an unknown field, an informer without a name or listed twice
// is an error naming the file and what is wrong.
func TestHandlerFileIsStrict(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"key twice":     {"informers: []\ninformers: [{name: a}]\n", ":2: informers: given twice (first on line 1)"},
		"unknown field": {"informers: []\nhandlers: []\n", `unknown field "handlers"`},
		"no name":       {"informers: [{config: {}}]\n", "informers[0] has no name"},
		"listed twice":  {"informers: [{name: a}, {name: a}]\n", `informer "a" is listed twice`},
	} {
		path := filepath.Join(t.TempDir(), "handlers.yaml")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadHandlerFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s and saying %q", name, err, path, tc.want)
		}
	}
}

// A file that gives nothing, or gives null sections, is the empty
// configuration, as an absent flag is.
func TestHandlerFileGivingNothingIsEmpty(t *testing.T) {
	for _, text := range []string{"", "# no handler settings yet\n", "null\n", "handler: null\ninformers: null\n", "handler:\n"} {
		f, err := ParseHandlerFile([]byte(text), "h.yaml")
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if len(f.Informers) != 0 || (len(f.Handler) > 0 && string(f.Handler) != "null") {
			t.Errorf("%q: %+v, want nothing given", text, f)
		}
	}
}

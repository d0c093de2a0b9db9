package configfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// exactKeys refuses an object key that names a field only when case is
// ignored: encoding/json matches keys to fields case-insensitively, so
// without this "bindcount" would fill BindCount, and a file that works
// here would mean something else to a case-sensitive reader (Volcano's).
func exactKeys(raw json.RawMessage, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || t == reflect.TypeFor[json.RawMessage]() {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil // not an object: the decoder has said so already
		}
		fields := jsonFields(t)
		for key, value := range obj {
			ft, ok := fields[key]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, key) {
						return fmt.Errorf("unknown field %q (did you mean %q? keys are case-sensitive)", path+key, name)
					}
				}
				continue // unknown to every reading: the decoder refused it already
			}
			if err := exactKeys(value, ft, path+key+"."); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		for i, item := range items {
			if err := exactKeys(item, t.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		for key, value := range obj {
			if err := exactKeys(value, t.Elem(), path+key+"."); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of a struct's fields, embedded structs'
// included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

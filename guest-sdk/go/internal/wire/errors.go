package wire

import (
	"errors"
	"strconv"
)

// ErrShortBytes: the buffer ends inside an object.
var ErrShortBytes = errors.New("msgpack: too few bytes left to read the object")

// typeError: the object at hand is not of the type asked for.
type typeError struct {
	want string
	lead byte
}

func (e typeError) Error() string {
	return "msgpack: wanted " + e.want + ", found " + typeName(e.lead)
}

// overflowError: an integer does not fit the type asked for.
type overflowError struct {
	value string
	bits  int
}

func (e overflowError) Error() string {
	return "msgpack: " + e.value + " overflows int" + strconv.Itoa(e.bits)
}

// ArrayError: a tuple (a struct sent as an array) has another number of
// elements than its fields; the generated codec of such structs returns it.
type ArrayError struct {
	Wanted, Got uint32
}

func (e ArrayError) Error() string {
	return "msgpack: wanted an array of " + strconv.FormatUint(uint64(e.Wanted), 10) + " elements, found " + strconv.FormatUint(uint64(e.Got), 10)
}

// pathError says where in the object an error was met, as msgp's
// WrapError does: "<cause> at Tasks/3/Request".
type pathError struct {
	cause error
	path  string
}

func (e pathError) Error() string { return e.cause.Error() + " at " + e.path }
func (e pathError) Unwrap() error { return e.cause }

// WrapError adds the field names and indexes ctx, outermost first, to the
// path of err. A short buffer is returned as it is: its position says
// nothing more.
func WrapError(err error, ctx ...any) error {
	if err == nil || err == ErrShortBytes {
		return err
	}
	var path string
	for _, c := range ctx {
		var part string
		switch c := c.(type) {
		case string:
			part = c
		case int:
			part = strconv.Itoa(c)
		case int32:
			part = strconv.Itoa(int(c))
		case uint32:
			part = strconv.FormatUint(uint64(c), 10)
		default:
			part = "?"
		}
		if path == "" {
			path = part
		} else {
			path += "/" + part
		}
	}
	if path == "" {
		return err
	}
	if p, ok := err.(pathError); ok {
		return pathError{p.cause, path + "/" + p.path}
	}
	return pathError{err, path}
}

// typeName names the msgpack type that lead starts.
func typeName(lead byte) string {
	switch {
	case lead <= 0x7f, lead >= 0xe0, lead >= 0xd0 && lead <= 0xd3:
		return "int"
	case lead >= 0xcc && lead <= 0xcf:
		return "uint"
	case lead <= 0x8f, lead == 0xde, lead == 0xdf:
		return "map"
	case lead <= 0x9f, lead == 0xdc, lead == 0xdd:
		return "array"
	case lead <= 0xbf, lead >= 0xd9 && lead <= 0xdb:
		return "str"
	case lead == 0xc0:
		return "nil"
	case lead == 0xc2, lead == 0xc3:
		return "bool"
	case lead >= 0xc4 && lead <= 0xc6:
		return "bin"
	case lead == 0xca:
		return "float32"
	case lead == 0xcb:
		return "float64"
	case lead >= 0xc7 && lead <= 0xc9, lead >= 0xd4 && lead <= 0xd8:
		return "ext"
	}
	return "invalid (0xc1)"
}

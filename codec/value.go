package codec

import (
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/acplint/acplint/internal/jsonv"
)

// DecodeValue decodes data, one JSON value, into v, a non-nil pointer to a
// domain type (a struct, a union interface, a slice...). It follows the
// rules of DecodeLine and reports what is wrong with pointers relative to
// the value; it panics if v is not a pointer.
func DecodeValue(data []byte, v any) []Problem {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic(fmt.Sprintf("codec.DecodeValue: want a non-nil pointer, got %T", v))
	}
	var probs []Problem
	if !utf8.Valid(data) {
		at := invalidUTF8At(data)
		probs = append(probs, Problem{Kind: ProbNotUTF8, Offset: at, Detail: fmt.Sprintf("invalid UTF-8 at byte %d", at)})
	}
	root, err := jsonv.Parse(data)
	if err != nil {
		off := 0
		if se, ok := err.(*jsonv.SyntaxError); ok {
			off = se.Offset
		}
		return append(probs, Problem{Kind: ProbNotJSON, Offset: off, Detail: "not JSON: " + err.Error()})
	}
	d := newDecoder(data, "")
	d.decode(&root, rv.Elem(), rv.Elem().Type().Name())
	return append(probs, d.problems...)
}

// EncodeValue renders v, a domain value or a pointer to one, as JSON.
func EncodeValue(v any) []byte {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return []byte("null")
		}
		rv = rv.Elem()
	}
	return appendValue(nil, rv)
}

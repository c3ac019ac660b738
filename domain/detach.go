package domain

import (
	"reflect"
	"strings"
)

// Detach returns a deep copy of v that shares no memory with v: every
// string, byte slice (raw JSON), slice, map and pointer in it is copied.
//
// A decoder may hand out values that point into memory it reuses for the
// next input (codec.BatchDecoder does, for speed); whoever keeps such a
// value past that reuse keeps a detached copy of it.
func Detach[T any](v T) T {
	c := reflect.New(reflect.TypeFor[T]()).Elem()
	c.Set(reflect.ValueOf(&v).Elem())
	detach(c)
	out, _ := c.Interface().(T) // fails only for a nil interface, which is out's zero value
	return out
}

// detach replaces, in the settable value v, everything that refers to
// memory with a copy of it.
func detach(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.Clone(v.String()))
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		detach(c.Elem())
		v.Set(c)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		c := reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
		detach(c)
		v.Set(c)
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := range c.Len() {
				detach(c.Index(i))
			}
		}
		v.Set(c)
	case reflect.Array:
		for i := range v.Len() {
			detach(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			detach(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			detach(e)
			c.SetMapIndex(k, e)
		}
		v.Set(c)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				detach(f)
			}
		}
	}
}

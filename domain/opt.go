package domain

// Presence says whether an optional member was absent, null or set.
type Presence uint8

const (
	Absent Presence = iota
	Null
	Present
)

// Optional is implemented by every Opt[T]; codec uses it to recognise
// optional members.
type Optional interface {
	Presence() Presence
}

// Opt is an optional, possibly null member. The zero value is absent.
// A *T would merge "absent" and "null", which the wire keeps apart (a patch
// with "title": null clears the title; an absent title leaves it alone).
type Opt[T any] struct {
	Val   T
	State Presence
}

// Some returns a set Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Val: v, State: Present} }

// NullOf returns an Opt that is present on the wire as null.
func NullOf[T any]() Opt[T] { return Opt[T]{State: Null} }

// Presence reports whether the member was absent, null or set.
func (o Opt[T]) Presence() Presence { return o.State }

// IsSet reports whether the member carries a non-null value.
func (o Opt[T]) IsSet() bool { return o.State == Present }

// IsNull reports whether the member is present as null.
func (o Opt[T]) IsNull() bool { return o.State == Null }

// Get returns the value and whether it is set.
func (o Opt[T]) Get() (T, bool) { return o.Val, o.State == Present }

// Or returns the value when set and def otherwise.
func (o Opt[T]) Or(def T) T {
	if o.State == Present {
		return o.Val
	}
	return def
}

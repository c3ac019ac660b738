package protocol

import (
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/acplint/acplint/domain"
)

// Map is a map of the machine's state. It is changed in place: the
// machine steps one Phase forward (StepInPlace), and Phase.Clone copies
// one for a caller that keeps the phase it had.
//
// A Map owns what it stores. Set copies a key it adds and the text of the
// values that carry any (owned), so a check stores what it read from a
// message as it is, although the driver reuses the message's memory once
// the step returns (codec.BatchDecoder).
//
// All iterates in ascending key order: findings made from a map's entries
// come in the same order on every run. The zero Map is empty and ready to
// use. A Map lives in one place, a field of the phase: a copy of it
// shares its entries once it has any, as a copy of a Go map does, and
// Clone makes one that does not.
type Map[K ~string, V any] struct {
	m map[K]entry[K, V]
}

// entry is a stored value with the map's own copy of its key. A Go map
// replaces the key it holds with the one an assignment names, so Set
// writes an entry back under this copy, never under its caller's key.
type entry[K ~string, V any] struct {
	key K
	val V
}

// Set binds k to v and returns the map, so that a caller may write
// m = m.Set(k, v).
func (m *Map[K, V]) Set(k K, v V) Map[K, V] {
	if e, ok := m.m[k]; ok {
		e.val = owned(v, &e.val)
		m.m[e.key] = e
		return *m
	}
	m.add(k, v)
	return *m
}

// add binds k, which m does not hold, to v, and returns m's copy of k:
// Set without its lookup, for a caller that has just made it.
func (m *Map[K, V]) add(k K, v V) K {
	if m.m == nil {
		m.m = make(map[K]entry[K, V])
	}
	k = K(strings.Clone(string(k)))
	m.m[k] = entry[K, V]{key: k, val: owned(v, nil)}
	return k
}

// Delete removes k and returns the map.
func (m *Map[K, V]) Delete(k K) Map[K, V] {
	delete(m.m, k)
	return *m
}

// Get returns the value bound to k.
func (m Map[K, V]) Get(k K) (V, bool) {
	e, ok := m.m[k]
	return e.val, ok
}

// Has reports whether k is bound.
func (m Map[K, V]) Has(k K) bool {
	_, ok := m.m[k]
	return ok
}

// Len is the number of entries.
func (m Map[K, V]) Len() int { return len(m.m) }

// All yields the entries in ascending key order. The map may be changed
// while All runs: an entry deleted before its turn is skipped, and one
// added is not yielded.
func (m Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if len(m.m) == 0 {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			e, ok := m.m[k]
			if ok && !yield(e.key, e.val) {
				return
			}
		}
	}
}

// Clone returns a copy of m that shares no memory with it but text and a
// pending request's id and params, which nothing changes.
func (m Map[K, V]) Clone() Map[K, V] {
	if m.m == nil {
		return m
	}
	c := make(map[K]entry[K, V], len(m.m))
	for k, e := range m.m {
		e.val = cloneValue(e.val)
		c[k] = e
	}
	return Map[K, V]{m: c}
}

// owned returns v with its own copy of the text it carries; prev, when
// not nil, is the value v replaces, whose copies v reuses where its text
// is the same (an update usually changes a status, not a name).
//
// Values of other types carry no text of a message: numbers, sessions and
// terminals (newSession and the Session setters copy theirs), and pending
// requests, whose method and session id the decoder gives memory of their
// own (codec.BatchDecoder) and whose id and params onRequest copies
// (keptParams). TestMapOwnsWhatItStores
// fails for a value type of the state that carries text and is missing
// here.
func owned[V any](v V, prev *V) V {
	switch x := any(&v).(type) {
	case *string:
		*x = ownText(*x, prevOf[string](prev))
	case *domain.SessionID:
		if p := prevOf[domain.SessionID](prev); p != nil && *p == *x {
			*x = *p
		} else {
			*x = domain.SessionID(strings.Clone(string(*x)))
		}
	case *[]string:
		*x = ownTexts(*x, prevOf[[]string](prev))
	case *ToolCall:
		var p *string
		if old := prevOf[ToolCall](prev); old != nil {
			p = &old.Name
		}
		x.Name = ownText(x.Name, p)
	case *MessageUse:
		var p *string
		if old := prevOf[MessageUse](prev); old != nil {
			p = &old.Kind
		}
		x.Kind = ownText(x.Kind, p)
	case *terminalExit:
		x.Signal.Val = strings.Clone(x.Signal.Val)
	case *planSnapshot:
		var old []plannedEntry
		if p := prevOf[planSnapshot](prev); p != nil {
			old = p.Entries
		}
		x.Entries = ownEntries(x.Entries, old)
	}
	return v
}

// prevOf returns prev as a *T, or nil when there is none.
func prevOf[T, V any](prev *V) *T {
	if prev == nil {
		return nil
	}
	p, _ := any(prev).(*T)
	return p
}

// ownText returns a copy of s, or *prev when that holds the same text.
func ownText(s string, prev *string) string {
	if prev != nil && *prev == s {
		return *prev
	}
	return strings.Clone(s)
}

// ownTexts returns a copy of texts, or prev when that holds the same.
func ownTexts(texts []string, prev *[]string) []string {
	if prev != nil && slices.Equal(*prev, texts) && (*prev == nil) == (texts == nil) {
		return *prev
	}
	if texts == nil {
		return nil
	}
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = strings.Clone(s)
	}
	return out
}

// ownEntries gives a plan's entries their own copy of their contents,
// one string that they share: plans are kept per session until its next
// one. The entries are protocol values, never a message's, so they are
// changed where they are. When prev, the entries they replace, has the
// same contents (a plan update that changes statuses), they take its
// copies.
func ownEntries(entries, prev []plannedEntry) []plannedEntry {
	if sameContents(entries, prev) {
		for i := range entries {
			entries[i].Content = prev[i].Content
		}
		return entries
	}
	size := 0
	for _, e := range entries {
		size += len(e.Content)
	}
	var b strings.Builder
	b.Grow(size)
	for _, e := range entries {
		b.WriteString(e.Content)
	}
	all := b.String()
	for i, e := range entries {
		entries[i].Content = all[:len(e.Content)]
		all = all[len(e.Content):]
	}
	return entries
}

// sameContents reports whether a and b list the same contents.
func sameContents(a, b []plannedEntry) bool {
	return slices.EqualFunc(a, b, func(x, y plannedEntry) bool { return x.Content == y.Content })
}

// cloneValue returns a copy of a stored value that shares no memory with
// it but text and a pending request's id and params; values without
// pointers or slices are copies already.
func cloneValue[V any](v V) V {
	switch x := any(&v).(type) {
	case **Session:
		*x = (*x).clone()
	case **Terminal:
		t := **x
		*x = &t
	case *[]string:
		*x = slices.Clone(*x)
	case *planSnapshot:
		x.Entries = slices.Clone(x.Entries)
	case **rootSet:
		*x = (*x).clone()
	}
	return v
}

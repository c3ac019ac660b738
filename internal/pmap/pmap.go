// Package pmap provides Map, a persistent (immutable) ordered map.
//
// # Why persistence
//
// The protocol state machine is written as a pure function
//
//	Step(phase, msg) -> phase'
//
// which must never modify the phase it is given: callers keep old phases
// around (for diagnostics, backtracking, comparing "before" and "after" in
// tests) and may read them from several goroutines. With a built-in Go map
// that contract can only be honoured by cloning the whole map on every step,
// which is O(n) per message and O(n²) over a transcript with hundreds of
// thousands of entries.
//
// Map instead never mutates a node once it is reachable from a Map value.
// Set, Delete and Update copy only the O(log n) nodes on the path from the
// root to the affected key ("path copying") and share every other subtree
// with the original. The old version therefore stays valid and unchanged,
// a step costs O(log n) time and allocations, and any number of versions can
// be read concurrently without locks.
//
// The tree is an AVL tree: heights of sibling subtrees differ by at most one,
// so the height is at most about 1.44·log2(n+2) and lookups stay logarithmic
// regardless of insertion order (transcripts often insert keys in ascending
// order, which would degenerate an unbalanced tree into a list).
package pmap

import (
	"cmp"
	"fmt"
	"iter"
	"reflect"
	"strings"
)

// Map is a persistent ordered map from K to V.
//
// The zero value is an empty map ready to use. Map values are small
// (a pointer and a length) and are meant to be passed and stored by value.
// All methods leave the receiver unchanged; the "modifying" methods return
// a new Map that shares structure with the old one. Because nodes are never
// mutated after construction, a Map is safe for concurrent use by any number
// of readers, and deriving new versions concurrently is safe too.
//
// Values are stored as given: if V is a pointer, slice or map type, mutating
// what it refers to is visible through every version that shares it. Treat
// stored values as immutable to keep the persistence guarantee meaningful.
type Map[K cmp.Ordered, V any] struct {
	root *node[K, V]
	n    int
}

// node is an AVL tree node. Once a node is reachable from a Map it is
// never modified; all updates allocate fresh nodes along the changed path.
type node[K cmp.Ordered, V any] struct {
	key    K
	val    V
	left   *node[K, V]
	right  *node[K, V]
	height int8 // 1 for a leaf; an AVL tree of height 127 would need > 2^87 nodes
}

func height[K cmp.Ordered, V any](n *node[K, V]) int8 {
	if n == nil {
		return 0
	}
	return n.height
}

// mk allocates a node with the given children, which must already satisfy
// the AVL invariant relative to each other.
func mk[K cmp.Ordered, V any](k K, v V, l, r *node[K, V]) *node[K, V] {
	return &node[K, V]{key: k, val: v, left: l, right: r, height: max(height(l), height(r)) + 1}
}

// balance builds a node for (k, v) over subtrees l and r whose heights differ
// by at most two (the most a single insertion or deletion below can cause),
// performing the single or double rotation needed to restore the AVL
// invariant. Rotations construct new nodes rather than modifying l or r,
// because those (or their children) may be shared with older versions.
func balance[K cmp.Ordered, V any](k K, v V, l, r *node[K, V]) *node[K, V] {
	hl, hr := height(l), height(r)
	switch {
	case hl > hr+1:
		if height(l.left) >= height(l.right) {
			// Single right rotation.
			return mk(l.key, l.val, l.left, mk(k, v, l.right, r))
		}
		// Double rotation: l.right becomes the new root.
		lr := l.right
		return mk(lr.key, lr.val, mk(l.key, l.val, l.left, lr.left), mk(k, v, lr.right, r))
	case hr > hl+1:
		if height(r.right) >= height(r.left) {
			// Single left rotation.
			return mk(r.key, r.val, mk(k, v, l, r.left), r.right)
		}
		// Double rotation: r.left becomes the new root.
		rl := r.left
		return mk(rl.key, rl.val, mk(k, v, l, rl.left), mk(r.key, r.val, rl.right, r.right))
	default:
		return mk(k, v, l, r)
	}
}

// Len returns the number of entries in m.
func (m Map[K, V]) Len() int { return m.n }

// Get returns the value stored under k and whether it was present.
func (m Map[K, V]) Get(k K) (V, bool) {
	if n := m.find(k); n != nil {
		return n.val, true
	}
	var zero V
	return zero, false
}

// find returns the node holding k, or nil.
func (m Map[K, V]) find(k K) *node[K, V] {
	n := m.root
	for n != nil {
		switch c := cmp.Compare(k, n.key); {
		case c < 0:
			n = n.left
		case c > 0:
			n = n.right
		default:
			return n
		}
	}
	return nil
}

// Has reports whether k is present in m.
func (m Map[K, V]) Has(k K) bool {
	_, ok := m.Get(k)
	return ok
}

// Set returns a map with k bound to v, replacing any previous binding.
// m itself is unchanged. It allocates O(log n) nodes.
func (m Map[K, V]) Set(k K, v V) Map[K, V] {
	root, added := insert(m.root, k, v)
	n := m.n
	if added {
		n++
	}
	return Map[K, V]{root: root, n: n}
}

func insert[K cmp.Ordered, V any](n *node[K, V], k K, v V) (*node[K, V], bool) {
	if n == nil {
		return &node[K, V]{key: k, val: v, height: 1}, true
	}
	switch c := cmp.Compare(k, n.key); {
	case c < 0:
		l, added := insert(n.left, k, v)
		return balance(n.key, n.val, l, n.right), added
	case c > 0:
		r, added := insert(n.right, k, v)
		return balance(n.key, n.val, n.left, r), added
	default:
		// Replace the value; the shape is unchanged, so no rebalancing.
		return &node[K, V]{key: k, val: v, left: n.left, right: n.right, height: n.height}, false
	}
}

// ReplaceInPlace stores v under k where k already is, and reports whether
// it was there; when it was not, m is left alone. Unlike every other
// method it changes m's nodes, and with them every version of the map that
// shares the node holding k: it is only for a map whose older versions
// nobody reads any more, such as the state of a driver that keeps no
// earlier phase. Replacing a value changes no tree shape, so it allocates
// nothing.
func (m Map[K, V]) ReplaceInPlace(k K, v V) bool {
	n := m.find(k)
	if n == nil {
		return false
	}
	n.val = v
	return true
}

// Delete returns a map without k. m itself is unchanged. If k is absent,
// Delete returns m as is (no allocation).
func (m Map[K, V]) Delete(k K) Map[K, V] {
	root, found := remove(m.root, k)
	if !found {
		return m
	}
	return Map[K, V]{root: root, n: m.n - 1}
}

func remove[K cmp.Ordered, V any](n *node[K, V], k K) (*node[K, V], bool) {
	if n == nil {
		return nil, false
	}
	switch c := cmp.Compare(k, n.key); {
	case c < 0:
		l, found := remove(n.left, k)
		if !found {
			return n, false
		}
		return balance(n.key, n.val, l, n.right), true
	case c > 0:
		r, found := remove(n.right, k)
		if !found {
			return n, false
		}
		return balance(n.key, n.val, n.left, r), true
	default:
		switch {
		case n.left == nil:
			return n.right, true
		case n.right == nil:
			return n.left, true
		}
		// Two children: replace n by its in-order successor.
		succ, r := removeMin(n.right)
		return balance(succ.key, succ.val, n.left, r), true
	}
}

// removeMin returns the minimum node of the non-empty tree n and the tree
// without it. The returned minimum node is the original (shared) node; the
// caller only reads its key and value.
func removeMin[K cmp.Ordered, V any](n *node[K, V]) (minNode, rest *node[K, V]) {
	if n.left == nil {
		return n, n.right
	}
	minNode, l := removeMin(n.left)
	return minNode, balance(n.key, n.val, l, n.right)
}

// Update returns a map with k bound to f(old, ok), where old and ok are the
// current value and presence of k in m (old is the zero value if absent).
// m itself is unchanged.
func (m Map[K, V]) Update(k K, f func(old V, ok bool) V) Map[K, V] {
	old, ok := m.Get(k)
	return m.Set(k, f(old, ok))
}

// All returns an iterator over the entries of m in ascending key order.
// The iterator reads an immutable snapshot, so it is unaffected by later
// operations and may be used from several goroutines at once.
func (m Map[K, V]) All() iter.Seq2[K, V] {
	root := m.root
	return func(yield func(K, V) bool) {
		var it iterator[K, V]
		it.reset(root)
		for n := it.next(); n != nil; n = it.next() {
			if !yield(n.key, n.val) {
				return
			}
		}
	}
}

// Keys returns the keys of m in ascending order, in a freshly allocated slice.
func (m Map[K, V]) Keys() []K {
	keys := make([]K, 0, m.n)
	for k := range m.All() {
		keys = append(keys, k)
	}
	return keys
}

// iterator is an explicit-stack in-order traversal. The right subtree of the
// node last returned by next is descended into lazily (via pending), which
// lets Equal skip a subtree shared by both maps.
type iterator[K cmp.Ordered, V any] struct {
	stack   []*node[K, V]
	pending *node[K, V]
	buf     [48]*node[K, V] // AVL height 48 needs > 10^10 nodes; append grows beyond
}

func (it *iterator[K, V]) reset(root *node[K, V]) {
	it.stack = it.buf[:0]
	it.pending = root
}

// next returns the next node in key order, or nil when done.
func (it *iterator[K, V]) next() *node[K, V] {
	for n := it.pending; n != nil; n = n.left {
		it.stack = append(it.stack, n)
	}
	it.pending = nil
	if len(it.stack) == 0 {
		return nil
	}
	n := it.stack[len(it.stack)-1]
	it.stack = it.stack[:len(it.stack)-1]
	it.pending = n.right
	return n
}

// skipRight abandons the right subtree of the node last returned by next.
func (it *iterator[K, V]) skipRight() { it.pending = nil }

// equaler is implemented by value types that define their own equality.
type equaler[V any] interface{ Equal(V) bool }

func valuesEqual[V any](a, b V) bool {
	if e, ok := any(a).(equaler[V]); ok {
		return e.Equal(b)
	}
	return reflect.DeepEqual(a, b)
}

// Equal reports whether m and o hold the same keys and, for each key, equal
// values. Values are compared with V's Equal(V) bool method if it has one,
// and with reflect.DeepEqual otherwise.
//
// Versions derived from a common ancestor share subtrees; Equal returns
// immediately when the roots are the same pointer and skips any shared
// subtree it meets at the same position in both traversals, so comparing a
// phase with a slightly modified successor is cheap in practice.
func (m Map[K, V]) Equal(o Map[K, V]) bool {
	if m.root == o.root {
		return true
	}
	if m.n != o.n {
		return false
	}
	var a, b iterator[K, V]
	a.reset(m.root)
	b.reset(o.root)
	for {
		x, y := a.next(), b.next()
		if x == nil || y == nil {
			return x == y
		}
		if x == y {
			// Same node at the same in-order position: the node and its
			// right subtree (the entries that follow it in both traversals)
			// are identical, so skip them in both.
			a.skipRight()
			b.skipRight()
			continue
		}
		if cmp.Compare(x.key, y.key) != 0 || !valuesEqual(x.val, y.val) {
			return false
		}
	}
}

// String formats m as "{k1: v1, k2: v2}" in ascending key order, using the
// %v verb for keys and values. It is meant for debugging and test diffs.
func (m Map[K, V]) String() string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for k, v := range m.All() {
		if !first {
			b.WriteString(", ")
		}
		first = false
		fmt.Fprintf(&b, "%v: %v", k, v)
	}
	b.WriteByte('}')
	return b.String()
}

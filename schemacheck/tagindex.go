package schemacheck

// tagIndex maps the tag values of a union's variants to what each selects.
// A union has a dozen variants or so: comparing the value with each tag in
// turn (most differ in length, which string comparison checks first) beats
// hashing it, which the profile of lint --schema showed as ~5% of a check.
// Past tagScan tags the map answers, so a schema with thousands of
// variants costs no more than a hash per lookup.
type tagIndex[T any] struct {
	keys []string
	vals []T
	big  map[string]T // set past tagScan tags, keys and vals nil then
}

const tagScan = 16

func newTagIndex[T any](m map[string]T) *tagIndex[T] {
	if len(m) > tagScan {
		return &tagIndex[T]{big: m}
	}
	t := &tagIndex[T]{}
	for k, v := range m {
		t.keys = append(t.keys, k)
		t.vals = append(t.vals, v)
	}
	return t
}

func (t *tagIndex[T]) get(s string) (T, bool) {
	if t.big != nil {
		v, ok := t.big[s]
		return v, ok
	}
	for i, k := range t.keys {
		if k == s {
			return t.vals[i], true
		}
	}
	var zero T
	return zero, false
}

package protocol

import (
	"maps"
	"strings"
)

// answeredWindow is how many answered ids per direction the machine
// remembers. Remembering them all would make memory grow with the
// transcript; a duplicate or late response is almost always close to the
// first one, and one older than the window is still reported, as a
// response that matches no pending request (ACP-RPC-003).
const answeredWindow = 4096

// answeredIDs maps recently answered request ids to the line of their
// response: the last answeredWindow/2 answers are always remembered, never
// more than answeredWindow.
//
// Every response records one answer, so this is the busiest map of the
// machine: the answers are a log, oldest first, of which the older half is
// dropped whenever it fills the window, and an index to each id's latest
// answer. Like Map, it keeps its own copy of every key.
type answeredIDs struct {
	entries []answer
	latest  map[string]int // id key -> index of its latest entry
	// highest is the greatest natural number among the keys ever
	// recorded ("" before the first): a request id above it, as the next
	// id of a side that counts its requests up is, was never answered,
	// and Get says so without a lookup in latest, whose thousands of keys
	// are rarely in the cache.
	highest string
}

// isNaturalKey reports whether key is the key of a natural number id,
// which domain keys by its decimal digits without leading zeros; no
// other key starts with a digit.
func isNaturalKey(key string) bool { return key != "" && key[0] >= '0' && key[0] <= '9' }

// naturalAbove reports whether natural number key a is greater than b,
// another one or "".
func naturalAbove(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

type answer struct {
	key  string
	line int
}

// Get returns the line of the latest response to the request id key.
func (a answeredIDs) Get(key string) (int, bool) {
	if isNaturalKey(key) && naturalAbove(key, a.highest) {
		return 0, false
	}
	i, ok := a.latest[key]
	if !ok {
		return 0, false
	}
	return a.entries[i].line, true
}

// Set records that key was answered at line, and returns a so that a
// caller may write a = a.Set(key, line).
func (a *answeredIDs) Set(key string, line int) answeredIDs {
	if a.latest == nil {
		// Both grow with use up to the window: made at full size, they
		// cost a short transcript half a megabyte of fresh pages per
		// direction, most of lint's time on a small file after start-up.
		a.latest = map[string]int{}
	}
	if len(a.entries) == answeredWindow {
		// Keep the newer half, in place, and index it again.
		a.entries = a.entries[:copy(a.entries, a.entries[answeredWindow/2:])]
		clear(a.latest)
		for i, e := range a.entries {
			a.latest[e.key] = i
		}
	}
	if isNaturalKey(key) && naturalAbove(key, a.highest) {
		// Never answered (see Get): most often the next id of a side
		// that counts its requests up.
		key = strings.Clone(key)
		a.highest = key
	} else if i, ok := a.latest[key]; ok {
		key = a.entries[i].key
	} else {
		key = strings.Clone(key)
	}
	a.entries = append(a.entries, answer{key: key, line: line})
	a.latest[key] = len(a.entries) - 1
	return *a
}

// Len is how many answers a remembers.
func (a answeredIDs) Len() int { return len(a.entries) }

// clone returns a copy of a that shares no memory with it.
func (a answeredIDs) clone() answeredIDs {
	if a.latest == nil {
		return a
	}
	entries := make([]answer, len(a.entries), cap(a.entries))
	copy(entries, a.entries)
	return answeredIDs{entries: entries, latest: maps.Clone(a.latest), highest: a.highest}
}

package protocol

import (
	"strings"

	"github.com/acplint/acplint/domain"
)

// pendingRequests is the requests one side sent that are not answered
// yet, keyed by their ids' keys. Besides the requests it keeps what the
// checks ask of them on any message, so that no check scans them all:
// a transcript may leave any number of requests pending, and the work per
// message must not grow with that number (DEVELOPERS.md: every path is
// linear).
type pendingRequests struct {
	reqs Map[string, Pending]
	// order is an index of the ids in domain.IDKeyOrder, for the findings
	// that name the lowest pending ids (pendingHint). It is built the first
	// time one asks, then kept up to date: most transcripts never ask.
	order idHeap
	// newSessions counts the pending session/new requests; settings the
	// pending session/set_mode and session/set_config_option requests by
	// the session they name.
	newSessions int
	settings    map[domain.SessionID]int
	// cutLine is the line of the first request whose arrival made the
	// machine drop older ones (dropOldest), 0 while it dropped none.
	cutLine int
}

// Get returns the request pending under key.
func (q *pendingRequests) Get(key string) (Pending, bool) { return q.reqs.Get(key) }

// Len is the number of pending requests.
func (q *pendingRequests) Len() int { return q.reqs.Len() }

// Set stores req under key, replacing the one pending under it.
func (q *pendingRequests) Set(key string, req Pending) {
	if old, ok := q.reqs.Get(key); ok {
		q.count(old, -1)
		q.reqs.Set(key, req)
		q.count(req, 1)
		return
	}
	if q.reqs.Len() >= MaxKeptEntries {
		q.dropOldest(req.Line)
	}
	owned := q.reqs.add(key, req)
	if q.order.built {
		q.order.push(idEntry{order: domain.IDKeyOrder(key), key: owned})
	}
	q.count(req, 1)
}

// Delete removes the request pending under key.
func (q *pendingRequests) Delete(key string) {
	if old, ok := q.reqs.Get(key); ok {
		q.remove(key, old)
	}
}

// remove removes old, the request Get returned for key: Delete without
// the lookup, for the response that has just looked it up.
func (q *pendingRequests) remove(key string, old Pending) {
	q.count(old, -1)
	q.reqs.Delete(key)
	// The index keeps the ids of answered requests until they reach its
	// top; when they outnumber the pending ones, it is built anew, which
	// costs no more than the deletions since it was last built.
	if q.order.built && len(q.order.entries) > 2*q.reqs.Len()+32 {
		q.order.build(q.reqs)
	}
}

// dropOldest forgets the oldest quarter of the pending requests, for a
// request at line that would be one more than MaxKeptEntries: a side may
// send any number of requests the other never answers, each kept as long
// as it is pending. Sorting them costs O(P log P) once per P/4 requests,
// and nothing below the cap. A response to a dropped request is not
// judged (unmatchedResponse), nor is its request reported unanswered at
// the end; noteCutPending says so.
func (q *pendingRequests) dropOldest(line int) {
	for _, key := range oldestQuarter(q.reqs, func(r Pending) int { return r.Line }) {
		q.Delete(key)
	}
	if q.cutLine == 0 {
		q.cutLine = line
	}
}

// count adds delta to the counters req belongs to.
func (q *pendingRequests) count(req Pending, delta int) {
	switch req.Method {
	case domain.MethodSessionNew:
		q.newSessions += delta
	case domain.MethodSessionSetMode, domain.MethodSessionSetConfigOption:
		if q.settings == nil {
			q.settings = map[domain.SessionID]int{}
		}
		if n := q.settings[req.Session] + delta; n > 0 {
			q.settings[req.Session] = n
		} else {
			delete(q.settings, req.Session)
		}
	}
}

// settingPending reports whether a session/set_mode or
// session/set_config_option for session id is pending.
func (q *pendingRequests) settingPending(id domain.SessionID) bool { return q.settings[id] > 0 }

// lowest returns the pending requests with the n lowest ids in
// domain.IDKeyOrder, in that order: O(n log P) for P pending requests,
// amortised, where sorting them all would take O(P log P).
func (q *pendingRequests) lowest(n int) []Pending {
	h := &q.order
	if !h.built {
		h.build(q.reqs)
	}
	var out []Pending
	var kept []idEntry
	for len(out) < n && len(h.entries) > 0 {
		e := h.pop()
		if len(kept) > 0 && kept[len(kept)-1].key == e.key {
			continue // an id answered and sent again has two entries, next to each other
		}
		req, ok := q.reqs.Get(e.key)
		if !ok {
			continue // answered
		}
		kept = append(kept, e)
		out = append(out, req)
	}
	for _, e := range kept {
		h.push(e)
	}
	return out
}

// Clone returns a copy of q that shares no memory with it but text and
// the requests' ids and params.
func (q pendingRequests) Clone() pendingRequests {
	q.reqs = q.reqs.Clone()
	q.order.entries = append([]idEntry(nil), q.order.entries...)
	if q.settings != nil {
		settings := make(map[domain.SessionID]int, len(q.settings))
		for k, v := range q.settings {
			settings[k] = v
		}
		q.settings = settings
	}
	return q
}

// idHeap is a binary min-heap of ids in domain.IDKeyOrder. It may hold
// ids no longer pending, and an id twice; pendingRequests.lowest skips
// those.
type idHeap struct {
	entries []idEntry
	built   bool
}

type idEntry struct {
	order string // domain.IDKeyOrder(key)
	key   string
}

// less orders entries by order, then by key so that the order is total.
func (a idEntry) less(b idEntry) bool {
	if c := strings.Compare(a.order, b.order); c != 0 {
		return c < 0
	}
	return a.key < b.key
}

// build makes h the index of the ids of reqs.
func (h *idHeap) build(reqs Map[string, Pending]) {
	h.built = true
	clear(h.entries)
	h.entries = h.entries[:0]
	for k, e := range reqs.m {
		h.entries = append(h.entries, idEntry{order: domain.IDKeyOrder(k), key: e.key})
	}
	for i := len(h.entries)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *idHeap) push(e idEntry) {
	h.entries = append(h.entries, e)
	for i := len(h.entries) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.entries[i].less(h.entries[parent]) {
			break
		}
		h.entries[i], h.entries[parent] = h.entries[parent], h.entries[i]
		i = parent
	}
}

func (h *idHeap) pop() idEntry {
	top := h.entries[0]
	last := len(h.entries) - 1
	h.entries[0] = h.entries[last]
	h.entries[last] = idEntry{}
	h.entries = h.entries[:last]
	h.down(0)
	return top
}

func (h *idHeap) down(i int) {
	n := len(h.entries)
	for {
		least := i
		if l := 2*i + 1; l < n && h.entries[l].less(h.entries[least]) {
			least = l
		}
		if r := 2*i + 2; r < n && h.entries[r].less(h.entries[least]) {
			least = r
		}
		if least == i {
			return
		}
		h.entries[i], h.entries[least] = h.entries[least], h.entries[i]
		i = least
	}
}

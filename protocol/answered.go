package protocol

import "sync"

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
// machine, and a persistent tree would copy a dozen nodes per response.
// Instead the versions of one direction share an append-only log, and a
// version is the length of the log it has seen: entries past that length
// belong to later versions and are invisible to it. Recording an answer
// from the newest version appends in place; recording one from an older
// version (a caller that keeps phases and steps one again) copies the
// part of the log it sees. So answeredIDs is a value like the rest of
// Phase: Set never changes what an existing version answers.
type answeredIDs struct {
	log *answerLog
	n   int // how many entries of log this version sees
}

// answerLog is the shared log. Versions may be read from several
// goroutines while the newest one is extended, hence the lock.
type answerLog struct {
	mu      sync.Mutex
	entries []answer
	latest  map[string]int // id key -> index of its latest entry
}

type answer struct {
	key  string
	line int
}

// newAnswerLog returns a log holding entries, which it takes over.
func newAnswerLog(entries []answer) *answerLog {
	l := &answerLog{entries: entries, latest: make(map[string]int, answeredWindow)}
	for i, e := range entries {
		l.latest[e.key] = i
	}
	return l
}

// Get returns the line of the latest response to the request id key.
func (a answeredIDs) Get(key string) (int, bool) {
	if a.log == nil {
		return 0, false
	}
	l := a.log
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.latest[key]
	if !ok {
		return 0, false
	}
	if i < a.n {
		return l.entries[i].line, true
	}
	// A later version answered key again; find the answer this version
	// saw last, if any.
	for j := a.n - 1; j >= 0; j-- {
		if l.entries[j].key == key {
			return l.entries[j].line, true
		}
	}
	return 0, false
}

// Set records that key was answered at line.
func (a answeredIDs) Set(key string, line int) answeredIDs {
	l := a.log
	if l == nil {
		l = newAnswerLog(make([]answer, 0, answeredWindow))
	}
	l.mu.Lock()
	if a.n != len(l.entries) || a.n == answeredWindow {
		// Either a later version has already extended the log, or the
		// window is full: continue in a log of our own, holding what this
		// version sees, or only its newer half when that fills the window.
		kept := l.entries[:a.n]
		if a.n == answeredWindow {
			kept = kept[answeredWindow/2:]
		}
		entries := make([]answer, len(kept), answeredWindow)
		copy(entries, kept)
		l.mu.Unlock()
		l = newAnswerLog(entries)
		l.mu.Lock()
	}
	l.entries = append(l.entries, answer{key: key, line: line})
	l.latest[key] = len(l.entries) - 1
	n := len(l.entries)
	l.mu.Unlock()
	return answeredIDs{log: l, n: n}
}

// Len is how many answers a remembers.
func (a answeredIDs) Len() int { return a.n }

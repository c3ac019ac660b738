package protocol

import (
	"iter"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// fsState is the bookkeeping of the FS checks.
type fsState struct {
	// extraRoots maps a session to the additionalDirectories it was
	// opened with; with Session.Cwd they form its root set (ACP-FS-004).
	extraRoots Map[domain.SessionID, *rootSet]
}

// maxListedRoots is how many roots, the cwd first, a finding lists:
// listing them all would make every file operation outside them cost as
// much as the message that opened the session.
const maxListedRoots = 5

// rootSet is the absolute additional directories of a session, indexed
// for containment once, when the session opens: a file operation then
// costs the length of its path, not the number of directories (one line
// may list millions). It is a trie of the components of the cleaned
// directories; node 0 is "/". Nothing changes a rootSet after
// newRootSet.
type rootSet struct {
	// listed are the first directories as written (clipListed), for
	// findings, and count is how many there are.
	listed []string
	count  int
	// edges maps a node and the name of a component to the child node;
	// isRoot marks the nodes that are directories of the set.
	edges  map[rootEdge]int
	isRoot []bool
	// cut says there were more than MaxKeptEntries absolute directories,
	// of which only the first are indexed: a path outside them may lie
	// in one dropped, and contains says it does.
	cut bool
}

type rootEdge struct {
	parent int
	name   string
}

// newRootSet indexes the absolute directories of dirs, with its own copy
// of their text; nil when there are none.
func newRootSet(dirs []string) *rootSet {
	var r *rootSet
	for _, d := range dirs {
		if !isAbsoluteFilePath(d) {
			continue
		}
		if r == nil {
			r = &rootSet{isRoot: []bool{false}}
		}
		if r.count == MaxKeptEntries {
			r.cut = true
			break
		}
		r.count++
		if len(r.listed) < maxListedRoots-1 {
			r.listed = append(r.listed, strings.Clone(clipListed(d)))
		}
		node := 0
		for name := range pathComponents(strings.Clone(cleanFilePath(d))) {
			e := rootEdge{node, name}
			next, ok := r.edges[e]
			if !ok {
				if r.edges == nil {
					r.edges = map[rootEdge]int{}
				}
				next = len(r.isRoot)
				r.isRoot = append(r.isRoot, false)
				r.edges[e] = next
			}
			node = next
		}
		r.isRoot[node] = true
	}
	return r
}

// clone returns a copy of r that shares no memory with it but text.
func (r *rootSet) clone() *rootSet {
	if r == nil {
		return nil
	}
	return &rootSet{listed: slices.Clone(r.listed), count: r.count, edges: maps.Clone(r.edges), isRoot: slices.Clone(r.isRoot), cut: r.cut}
}

// contains reports whether p, an absolute path cleaned by cleanFilePath,
// lies in one of the directories, as withinDir says.
func (r *rootSet) contains(p string) bool {
	if r == nil {
		return false
	}
	if r.isRoot[0] || r.cut {
		return true
	}
	node := 0
	for name := range pathComponents(p) {
		next, ok := r.edges[rootEdge{node, name}]
		if !ok {
			return false
		}
		if r.isRoot[next] {
			return true
		}
		node = next
	}
	return false
}

// pathComponents yields the names of path p cleaned by cleanFilePath, an
// absolute path that has no empty component: none for "/".
func pathComponents(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if len(p) <= 1 {
			return
		}
		for name := range strings.SplitSeq(p[1:], "/") {
			if !yield(name) {
				return
			}
		}
	}
}

// withinCleanDir is withinDir for a path and a directory cleaned by
// cleanFilePath, without copying either.
func withinCleanDir(p, dir string) bool {
	return p == dir || dir == "/" || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

func noteNewSessionRoots(p *Phase, c *ctx, req Pending) {
	res, ok := resultOf[domain.NewSessionResponse](c.m)
	params, ok2 := requestParams[domain.NewSessionRequest](req)
	if !ok || !ok2 || !c.succeeded() || res.SessionID == "" {
		return
	}
	dirs, _ := params.AdditionalDirectories.Get()
	p.flow.fs.extraRoots = p.flow.fs.extraRoots.Set(res.SessionID, newRootSet(dirs))
}

func noteReopenedSessionRoots(p *Phase, c *ctx) {
	open, ok := openParamsOf(c.m.Params)
	if !ok || open.ID == "" {
		return
	}
	dirs, _ := open.Dirs.Get()
	p.flow.fs.extraRoots = p.flow.fs.extraRoots.Set(open.ID, newRootSet(dirs))
}

// checkFSRequest applies the path rules of fs/read_text_file and
// fs/write_text_file (ACP-FS-001, -002, -004).
func checkFSRequest(p *Phase, c *ctx) {
	if c.m.Dir == domain.FromClient {
		return
	}
	var session domain.SessionID
	var filePath string
	switch r := c.m.Params.(type) {
	case *domain.ReadTextFileRequest:
		if r == nil {
			return
		}
		session, filePath = r.SessionID, r.Path
		if line, ok := r.Line.Get(); ok && line == 0 {
			c.add(findings.FSZeroLine, "/params/line",
				"fs/read_text_file starts at line 0; lines are 1-based, so this is most likely an off-by-one, and clients either fail or read from line 1")
		}
		if limit, ok := r.Limit.Get(); ok && limit == 0 {
			f := c.add(findings.FSZeroLine, "/params/limit",
				"fs/read_text_file asks for a limit of 0 lines; clients disagree on whether that means nothing or no limit")
			f.Severity = findings.SeverityInfo
		}
	case *domain.WriteTextFileRequest:
		if r == nil {
			return
		}
		session, filePath = r.SessionID, r.Path
	default:
		return
	}
	if filePath == "" {
		return
	}
	if !isAbsoluteFilePath(filePath) {
		c.add(findings.FSRelativePath, "/params/path",
			"%s path %q is not absolute; all ACP paths must be absolute, and the client resolves a relative one against its own working directory, not the session's", c.m.Method, filePath)
		return
	}
	s, ok := p.Session(session)
	if !ok || !isAbsoluteFilePath(s.Cwd) {
		return
	}
	extra, _ := p.flow.fs.extraRoots.Get(session)
	if cleaned := cleanFilePath(filePath); withinCleanDir(cleaned, s.cleanCwd) || extra.contains(cleaned) {
		return
	}
	cwd := clipListed(s.Cwd)
	what := "the session's cwd " + quote(cwd)
	if extra != nil {
		roots := append([]string{cwd}, extra.listed...)
		if 1+extra.count > maxListedRoots {
			roots = append(roots, "…")
		}
		what = "the session's cwd and additional directories (" + strings.Join(roots, ", ") + ")"
	}
	c.add(findings.FSOutsideRoots, "/params/path",
		"%s path %q lies outside %s; the root set should bound file operations, and the user granted only those directories", c.m.Method, filePath, what)
}

// saysFileMissing reports whether an error text says that a file does not
// exist. Strong phrasings (Node's ENOENT, Rust's "os error 2", Python's
// FileNotFoundError, "no such file") count alone; a bare "not found" or
// "does not exist" counts only next to the word file or path or the file's
// own name, since "session not found" is a different failure.
func saysFileMissing(text, filePath string) bool {
	if missingFileStrong().MatchString(text) {
		return true
	}
	// The path itself is no evidence: a file called "missing.md" that
	// cannot be read for another reason must not count.
	base := filePath[strings.LastIndexAny(filePath, `/\`)+1:]
	withoutPath := text
	if filePath != "" {
		withoutPath = strings.ReplaceAll(withoutPath, filePath, "")
	}
	if base != "" {
		withoutPath = strings.ReplaceAll(withoutPath, base, "")
	}
	if !missingFileWeak().MatchString(withoutPath) {
		return false
	}
	lower := strings.ToLower(text)
	if strings.Contains(lower, "file") || strings.Contains(lower, "path") {
		return true
	}
	return base != "" && strings.Contains(text, base)
}

var (
	missingFileStrong = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bENOENT\b|no such file|FileNotFound|file not found|os error 2\b|cannot find the (file|path)`)
	})
	missingFileWeak = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)not found|does not exist|doesn't exist|not exist|missing`)
	})
)

// checkReadFailure reports a failed fs/read_text_file whose error says the
// file is missing but whose code is not -32002 (ACP-FS-003). Whether a
// file exists cannot be seen on the wire; acplint takes the client's own
// error text as the evidence, so a missing file reported with no such
// wording goes unnoticed.
func checkReadFailure(p *Phase, c *ctx, req Pending) {
	e := c.m.Error
	if c.succeeded() || e == nil || c.m.Dir == domain.FromAgent {
		return
	}
	code := domain.ErrorCode(e.Code)
	switch code {
	case domain.CodeResourceNotFound, domain.CodeMethodNotFound, domain.CodeRequestCancelled:
		return // right, or a different failure (capability, cancel)
	}
	filePath, path := "", ""
	if kept, ok := req.Params.(keptReadPath); ok {
		filePath, path = string(kept), " "+quote(clipListed(string(kept)))
	}
	evidence := ""
	switch {
	case saysFileMissing(e.Message, filePath):
		evidence = "its message says so"
	case len(e.Data) > 0 && saysFileMissing(string(e.Data), filePath):
		evidence = "its data says so"
	default:
		return
	}
	f := c.add(findings.FSNotFoundCode, "/error/code",
		"fs/read_text_file of a missing file%s is answered with %d; the file does not exist (%s), which clients should report with -32002 (Resource not found) so the agent can tell an expected miss from a real read failure", path, e.Code, evidence)
	c.related(f, req.Line, "the fs/read_text_file request")
}

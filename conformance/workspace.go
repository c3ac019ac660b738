package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Workspace is the project the harness client opens: a directory on disk
// plus the editor's unsaved buffers. fs/read_text_file answers from the
// buffers first, as an editor does, so an agent that reads the disk behind
// the client's back sees other content than one that asks the client.
type Workspace struct {
	Root string // absolute path of the project directory
	// Disk holds the files as written under Root, by relative path.
	Disk map[string]string
	// Unsaved are buffers the editor has modified but not saved.
	Unsaved map[string]string
}

// defaultFiles is the project every check run opens.
var defaultFiles = map[string]string{
	"README.md":      "# Demo project\n\nA small Go project that acplint check opens as the workspace.\n",
	"src/main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
	"notes/todo.txt": "- write the README\n- add tests\n",
	"go.mod":         "module example.com/demo\n\ngo 1.22\n",
}

// unsavedFiles differ from disk: the user is editing them.
var unsavedFiles = map[string]string{
	"src/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\") // unsaved edit\n}\n",
}

// NewWorkspace writes the default project under dir/project.
func NewWorkspace(dir string) (*Workspace, error) {
	root, err := filepath.Abs(filepath.Join(dir, "project"))
	if err != nil {
		return nil, err
	}
	w := &Workspace{Root: root, Disk: map[string]string{}, Unsaved: map[string]string{}}
	for rel, content := range defaultFiles {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, err
		}
		w.Disk[rel] = content
	}
	for rel, content := range unsavedFiles {
		w.Unsaved[rel] = content
	}
	return w, nil
}

// buffers is one run's view of the workspace: writes of a run land in its
// own buffers and never on disk, so every run starts from the same state.
type buffers struct {
	ws      *Workspace
	written map[string]string
}

func (w *Workspace) open() *buffers { return &buffers{ws: w, written: map[string]string{}} }

// rel returns the workspace-relative path of an absolute path, or false
// when it lies outside the workspace.
func (b *buffers) rel(abs string) (string, bool) {
	r, err := filepath.Rel(b.ws.Root, filepath.Clean(abs))
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// read returns the content the editor shows for abs.
func (b *buffers) read(abs string) (string, bool) {
	rel, ok := b.rel(abs)
	if !ok {
		return "", false
	}
	for _, m := range []map[string]string{b.written, b.ws.Unsaved, b.ws.Disk} {
		if c, ok := m[rel]; ok {
			return c, true
		}
	}
	return "", false
}

// write stores content in the editor buffer of abs.
func (b *buffers) write(abs, content string) bool {
	rel, ok := b.rel(abs)
	if !ok {
		return false
	}
	b.written[rel] = content
	return true
}

// files lists the workspace-relative paths of every file, sorted.
func (b *buffers) files() []string {
	seen := map[string]bool{}
	for _, m := range []map[string]string{b.written, b.ws.Unsaved, b.ws.Disk} {
		for k := range m {
			seen[k] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sliceLines applies fs/read_text_file's line (1-based) and limit.
func sliceLines(content string, line, limit int) string {
	if line <= 1 && limit <= 0 {
		return content
	}
	lines := strings.SplitAfter(content, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	start := 0
	if line > 1 {
		start = line - 1
	}
	if start > len(lines) {
		start = len(lines)
	}
	end := len(lines)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	return strings.Join(lines[start:end], "")
}

// simTerminal is a terminal the client simulates: the command "runs" at
// once, with the output and exit code a real shell would give in the
// workspace.
type simTerminal struct {
	output   string
	exitCode int
	limit    int // outputByteLimit; 0 = none
	killed   bool
	released bool
}

// simulate runs cmd with args in the workspace, without running anything.
func (b *buffers) simulate(cmd string, args []string) (string, int) {
	switch cmd {
	case "ls":
		var top []string
		seen := map[string]bool{}
		for _, f := range b.files() {
			name, _, _ := strings.Cut(f, "/")
			if !seen[name] {
				seen[name] = true
				top = append(top, name)
			}
		}
		return strings.Join(top, "\n") + "\n", 0
	case "cat":
		var out strings.Builder
		code := 0
		for _, a := range args {
			if c, ok := b.read(filepath.Join(b.ws.Root, a)); ok {
				out.WriteString(c)
			} else {
				fmt.Fprintf(&out, "cat: %s: No such file or directory\n", a)
				code = 1
			}
		}
		return out.String(), code
	case "echo":
		return strings.Join(args, " ") + "\n", 0
	case "true":
		return "", 0
	case "false":
		return "", 1
	case "go":
		if len(args) > 0 && args[0] == "vet" {
			return "# example.com/demo/src\nsrc/main.go:6:2: fmt.Println call has possible Printf formatting directive %d\n", 1
		}
		if len(args) > 0 && args[0] == "test" {
			return "?   \texample.com/demo/src\t[no test files]\n", 0
		}
		return "go: unknown command\n", 2
	}
	return "sh: 1: " + cmd + ": not found\n", 127
}

// truncateFront keeps the last limit bytes of s, cut at a character
// boundary, as the spec asks of outputByteLimit.
func truncateFront(s string, limit int) (string, bool) {
	if limit <= 0 || len(s) <= limit {
		return s, false
	}
	cut := len(s) - limit
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[cut:], true
}

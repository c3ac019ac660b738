package protocol

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// TestRootSetMatchesWithinDir: a session's root set, indexed once, and
// withinCleanDir, for its cwd, say of every path what asking withinDir of
// each root says, through
// separators, drive letters, UNC names, "." and "..", the root "/" and
// directories nested in one another; and it keeps no memory of the text
// it was built from.
func TestRootSetMatchesWithinDir(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "b", "ab", "a.b", ".", "..", "", "C:", "c:", "d:"}
	seps := []string{"/", `\`, "//"}
	randomPath := func() string {
		var b strings.Builder
		switch rng.IntN(4) {
		case 0:
			b.WriteString(`\\`)
		case 1:
			b.WriteString(parts[7+rng.IntN(3)])
			b.WriteString(seps[rng.IntN(2)])
		default:
			b.WriteString("/")
		}
		for i := range rng.IntN(5) {
			if i > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if rng.IntN(4) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		return b.String()
	}
	for range 3000 {
		var dirs []string
		for range rng.IntN(6) {
			if rng.IntN(8) == 0 {
				dirs = append(dirs, "a/relative")
				continue
			}
			dirs = append(dirs, randomPath())
		}
		// Built from memory that is overwritten afterwards, as the
		// decoder reuses its buffers.
		buf := []byte(strings.Join(dirs, "\x00"))
		aliased := strings.Split(unsafe.String(unsafe.SliceData(buf), len(buf)), "\x00")
		if len(dirs) == 0 {
			aliased = nil
		}
		set := newRootSet(aliased)
		for i := range buf {
			buf[i] = '#'
		}
		cwd := randomPath()
		for range 20 {
			p := randomPath()
			if got, want := withinCleanDir(cleanFilePath(p), cleanFilePath(cwd)), withinDir(p, cwd); got != want {
				t.Fatalf("withinCleanDir(%q, %q) = %v, withinDir says %v", p, cwd, got, want)
			}
			want := false
			for _, d := range dirs {
				if isAbsoluteFilePath(d) && withinDir(p, d) {
					want = true
				}
			}
			if got := set.contains(cleanFilePath(p)); got != want {
				t.Fatalf("roots %q: contains(%q) = %v, withinDir says %v", dirs, p, got, want)
			}
		}
	}
}

// TestClipListedKeepsWholeCharacters: a clipped text ends on a whole
// character, and a text within the bound is shown whole.
func TestClipListedKeepsWholeCharacters(t *testing.T) {
	for shift := range 4 {
		s := strings.Repeat("a", shift) + strings.Repeat("é€😀", maxListedText)
		got := clipListed(s)
		body, clipped := strings.CutSuffix(got, "…")
		if !clipped || !utf8.ValidString(got) || !strings.HasPrefix(s, body) || len(body) > maxListedText || len(body) < maxListedText-3 {
			t.Errorf("shift %d: clipped to %d bytes (%q…), want a valid prefix of at most %d bytes and then …", shift, len(body), got[max(0, len(got)-12):], maxListedText)
		}
	}
	whole := strings.Repeat("é", maxListedText/2)
	if got := clipListed(whole); got != whole {
		t.Errorf("a text of %d bytes is clipped to %d", len(whole), len(got))
	}
}

// cleanFilePath's shortcut for paths already clean changes nothing: for
// every string of up to seven of the bytes that matter to it, it returns
// what path.Clean of the normalised path returns.
func TestCleanFilePathShortcutMatchesClean(t *testing.T) {
	const alphabet = `/.a\:C`
	var walk func(s string)
	walk = func(s string) {
		if isCleanSlashPath(s) {
			slow := strings.ReplaceAll(s, `\`, "/")
			if len(slow) >= 2 && isLetter(slow[0]) && slow[1] == ':' {
				slow = "/" + strings.ToLower(slow[:1]) + slow[1:]
			}
			if slow = path.Clean(slow); slow != s {
				t.Fatalf("isCleanSlashPath(%q) is true, but the path cleans to %q", s, slow)
			}
		}
		if len(s) == 7 {
			return
		}
		for i := range len(alphabet) {
			walk(s + alphabet[i:i+1])
		}
	}
	walk("")
	for _, s := range []string{"/", "/a", "/home/dana/src/x.go", "/a/.b", "/a/..b", "/a.", "/a/b.."} {
		if !isCleanSlashPath(s) {
			t.Errorf("isCleanSlashPath(%q) is false for a clean path", s)
		}
	}
}

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acplint/acplint/internal/safefile"
)

// roots are the directories the tools may read under.
type roots struct {
	dirs  []string // absolute, links resolved: what a path must lie under
	given []string // absolute, as given: the same directories before resolving
}

func newRoots(dirs []string) (*roots, error) {
	if len(dirs) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("no --root given and no working directory: %w", err)
		}
		dirs = []string{wd}
	}
	r := &roots{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		info, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("root %s is not a directory", d)
		}
		r.dirs = append(r.dirs, real)
		r.given = append(r.given, abs)
	}
	return r, nil
}

// within reports whether path (absolute, clean) is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func underAny(dirs []string, path string) bool {
	for _, d := range dirs {
		if within(d, path) {
			return true
		}
	}
	return false
}

// resolve returns the real path of name, a path a client gave (relative
// ones are taken from the first root), when it lies under a root once
// its links are resolved. A name outside the roots as written is refused
// before the file system is asked about it, so that errors do not tell
// which files exist elsewhere.
func (r *roots) resolve(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty path")
	}
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dirs[0], abs)
	}
	abs = filepath.Clean(abs)
	if !underAny(r.dirs, abs) && !underAny(r.given, abs) {
		return "", r.outside(name)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such file", name)
	}
	if err != nil {
		return "", err
	}
	if !underAny(r.dirs, real) {
		return "", fmt.Errorf("%s resolves to %s: %w", name, real, r.outside(name))
	}
	return real, nil
}

func (r *roots) outside(name string) error {
	return fmt.Errorf("%s is outside the directories this server may read (%s); start acplint mcp with --root DIR to allow another one", name, strings.Join(r.dirs, ", "))
}

// errTooLarge says an input exceeds --max-file-size.
var errTooLarge = errors.New("larger than the server reads (acplint mcp --max-file-size)")

// open opens a regular file under the roots, no larger than max bytes,
// for a reader bounded by ctx and by max (a file that grows past it while
// read fails, it is not cut). It never waits on a FIFO or reads a device.
func (r *roots) open(ctx context.Context, name string, max int64) (io.Reader, func(), error) {
	real, err := r.resolve(name)
	if err != nil {
		return nil, nil, err
	}
	f, err := safefile.OpenRegular(real)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if info.Size() > max {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %d bytes, %w: at most %d", name, info.Size(), errTooLarge, max)
	}
	return &boundedReader{ctx: ctx, r: f, left: max, name: name, max: max}, func() { f.Close() }, nil
}

// readFile reads a whole file under the roots, bounded as open is.
func (r *roots) readFile(ctx context.Context, name string, max int64) ([]byte, error) {
	in, done, err := r.open(ctx, name, max)
	if err != nil {
		return nil, err
	}
	defer done()
	return io.ReadAll(in)
}

// unwrapPath drops the *fs.PathError around err, whose path is the
// resolved one; the caller names the file as the client did.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// boundedReader reads at most max bytes and stops when ctx is done, so
// that the work behind a tool call ends with the call.
type boundedReader struct {
	ctx  context.Context
	r    io.Reader
	left int64
	name string
	max  int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.left <= 0 {
		// One byte more than max would be too many.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%s: %w: it grew past %d bytes while read", b.name, errTooLarge, b.max)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

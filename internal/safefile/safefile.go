// Package safefile creates acplint's output files: recordings, live
// findings, baselines and check's reproductions. They may hold secrets
// (an agent's environment, tokens in its traffic) and are often written to
// shared directories such as /tmp, so every file is created 0600 and no
// function here follows a symbolic link at the final path: a link planted
// there by another user is refused (Create, Overwrite) or replaced
// (Replace), never written through.
//
// Two kinds of file need two strategies:
//
//   - A stream (tap's --record and --lint-out) must be readable while it is
//     written and must survive a SIGKILL of the writer with everything
//     flushed so far, so it cannot be written elsewhere and renamed at the
//     end. Create opens it with O_CREAT|O_EXCL|O_NOFOLLOW: a path that
//     exists, as a file or a link, is an error naming it (ErrExists), so two
//     taps given one path never silently lose one recording. Overwrite
//     reuses a path on purpose (an editor configuration names one
//     recording for every session; a --force flag): it truncates an
//     existing regular file but still refuses links and non-regular
//     files, and fails with ErrInUse while another acplint process holds
//     the file, so that a second tap cannot truncate the first one's
//     recording. Both take an advisory exclusive lock (flock) for the
//     life of the file, which is how Overwrite sees that it is in use.
//
//   - A report (a baseline, check's transcripts and notes) is complete or
//     useless. Replace writes it to a temporary file in the same directory
//     and renames that over the path when the content is complete, so a
//     reader sees the old file or the new one, never half of one, and a
//     crash leaves the old file intact. Rewriting the path is the point of
//     these files (--write-baseline updates the baseline), so Replace
//     replaces what is there; a link at the path is replaced by the file,
//     its target is left untouched.
//
// Readers of untrusted directories (acplint corpus) use OpenRegular, which
// opens only regular files, without following a link or waiting on a FIFO.
//
// On systems without O_NOFOLLOW or flock (not Unix) the link and lock
// checks are not made; O_EXCL and the atomic rename still are.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Perm is the permission of every file this package creates: owner only,
// because recordings and reports may hold secrets.
const Perm fs.FileMode = 0o600

// ErrExists is returned (wrapped, with the path) by Create when the path
// already exists; errors.Is(err, fs.ErrExist) holds as well.
var ErrExists = errors.New("already exists; acplint does not overwrite an output file it may share with another process (remove it or choose another name)")

// ErrInUse is returned (wrapped, with the path) by Create and Overwrite
// when another process holds the lock on the file.
var ErrInUse = errors.New("is being written by another process")

// existsError makes errors.Is(err, fs.ErrExist) hold besides ErrExists.
type existsError struct{ path string }

func (e *existsError) Error() string { return e.path + " " + ErrExists.Error() }
func (e *existsError) Is(target error) bool {
	return target == ErrExists || target == fs.ErrExist
}

// Create creates name for writing with permission Perm. It fails with
// ErrExists when anything (a file, a link, even a dangling one) is already
// at name. The file stays locked against Overwrite by other processes
// until it is closed.
func Create(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, Perm)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, &existsError{name}
		}
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %w", name, err)
	}
	return f, nil
}

// Overwrite is Create for a path the user explicitly allowed to be reused,
// or that belongs to the caller (check's reproductions): an existing
// regular file is truncated (and its permission narrowed to Perm), and the
// file is open for reading too, so that the caller can read back what it
// wrote; a link, a directory, a FIFO or a device at name is refused, and
// so is a file another process holds open through Create or Overwrite
// (ErrInUse).
func Overwrite(name string) (*os.File, error) {
	f, err := openRegular(name, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %w", name, err)
	}
	// Truncate only once the lock is ours: another writer's file is left
	// as it was.
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Chmod(Perm); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Replace writes name atomically: write fills a temporary file (mode Perm)
// in name's directory, which is renamed to name once write and the flush to
// disk succeeded. On any error name is left as it was and the temporary
// file is removed.
func Replace(name string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp already uses 0600; say so rather than rely on it.
	if err := tmp.Chmod(Perm); err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// WriteFile is Replace for content already in memory.
func WriteFile(name string, data []byte) error {
	return Replace(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// OpenRegular opens name for reading only if it is a regular file, never
// following a symbolic link at the final path and never waiting on a FIFO
// with no writer: readers that walk a directory (acplint corpus) use it so
// that a link out of the directory, a device such as /dev/zero or a FIFO
// cannot make them read forever or leave the directory. The error says
// what name is instead.
func OpenRegular(name string) (*os.File, error) {
	return openRegular(name, os.O_RDONLY)
}

// openRegular opens name with flag if it is a regular file and not a
// symbolic link (where the system can tell).
func openRegular(name string, flag int) (*os.File, error) {
	// O_NONBLOCK: opening a FIFO would otherwise wait for the other end,
	// for ever; a regular file ignores it.
	f, err := os.OpenFile(name, flag|noFollow|nonBlock, Perm)
	if err != nil {
		if isLinkError(err) {
			return nil, fmt.Errorf("%s is a symbolic link; acplint does not follow links here", name)
		}
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, describeType(info.Mode()))
	}
	return f, nil
}

// describeType names a file type for an error message.
func describeType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}

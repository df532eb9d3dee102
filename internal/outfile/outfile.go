// Package outfile writes a command's output file (report --out, export
// --out, export --schema) without harming what the path already names.
//
// A regular file, or a path that names nothing yet, is written whole or not
// at all: into a temporary file beside it, renamed into place once
// complete, keeping an existing file's permissions. A symbolic link is
// followed, and its target written so (the link stays a link). A FIFO or a
// device (/dev/null, /dev/stdout, a pipe a reader waits on) is written
// through: renaming over it would replace the device with a regular file,
// or leave the reader waiting forever. A directory or a socket is refused
// with one sentence.
//
// It must not be used for files of prowcrawl's own (the database, the
// cache): those have their own locks and layouts.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes path with write, as the package doc says.
func Write(path string, write func(io.Writer) error) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return atomic(target, 0o644, write)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return atomic(target, m.Perm(), write)
	case m.IsDir():
		return fmt.Errorf("%s is a directory: name a file to write", path)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%s is a socket: name a file, a FIFO or a device to write", path)
	}
	return through(target, write)
}

// resolve is path with its symbolic links followed; a link whose target
// does not exist yet resolves to that target, to be created. A loop is said
// as one.
func resolve(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links (a loop?)", path)
}

// atomic writes path whole or not at all, with permissions perm.
func atomic(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file private; a report or an export is not.
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// through writes a FIFO or a device in place. Opening a FIFO waits for
// its reader, as a shell's redirection does.
func through(path string, write func(io.Writer) error) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

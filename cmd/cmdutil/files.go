package cmdutil

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// The files a command's flags name (--from, --baseline, --out) and the
// incident's artifacts a command reads: opened without following a link
// or waiting on a named pipe, a bad record a usage error naming the flag
// and the line.

// ReadFile opens path and reads it with read, turning a missing file or a
// bad record into a usage error that names the flag and the line.
func ReadFile[T any](path, flag string, read func(r io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := incident.OpenRegular(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return zero, UsageErrorf("%s %s: no such file", flag, path)
	}
	var nr *incident.NotRegularError
	if errors.As(err, &nr) {
		return zero, UsageErrorf("%s %s: %s, not a regular file: give the path of a file", flag, path, nr.Kind)
	}
	if err != nil {
		return zero, UsageErrorf("%s %s: %v", flag, path, err)
	}
	defer f.Close()
	return decodeFile(f, path, flag, read)
}

// NotRegular refuses, in RunE before any incident is opened or AWS is
// asked, a file flag's path that names a named pipe, a device or a
// directory (pairs of flag and path; an empty path is skipped): opened
// through incident.OpenRegular, which never waits on a FIFO. A missing
// file is left to the reading, which says so.
func NotRegular(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		flag, path := pairs[i], pairs[i+1]
		if path == "" || strings.HasPrefix(path, "s3://") {
			continue
		}
		f, err := incident.OpenRegular(path, os.O_RDONLY)
		var nr *incident.NotRegularError
		if errors.As(err, &nr) {
			return UsageErrorf("%s %s: %s, not a regular file: give the path of a file", flag, path, nr.Kind)
		}
		if err == nil {
			f.Close()
		}
	}
	return nil
}

// OutReplaceable refuses an --out that names anything but a new path or
// a regular file (a named pipe, a symbolic link, a directory, a device):
// the write renames over it (incident.Replaceable).
func OutReplaceable(path string) error {
	if path == "" || strings.HasPrefix(path, "s3://") {
		return nil
	}
	var nr *incident.NotRegularError
	if err := incident.Replaceable(path); errors.As(err, &nr) {
		return UsageErrorf("--out %s: %s, not a regular file: give a new path or a regular file to replace", path, nr.Kind)
	}
	return nil
}

// decodeFile reads an open file with read, turning a bad record into a
// usage error that names the flag and the line.
func decodeFile[T any](f io.Reader, path, flag string, read func(r io.Reader) (T, error)) (T, error) {
	var zero T
	v, err := read(f)
	var le *sqsjson.LineError
	if errors.As(err, &le) {
		return zero, UsageErrorf("%s %s: %v; fix or remove that line", flag, path, le)
	}
	return v, err
}

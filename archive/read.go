package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// File is an export opened for reading, every line checked first.
type File struct {
	// Name is the FILE or s3:// URL given.
	Name string
	// Count is the messages it holds.
	Count  int
	f      *os.File
	remove func()
}

// maxLine bounds one line: a message of 256 KiB (1 MiB with extended
// payloads), its attributes and JSON escaping.
const maxLine = 4 << 20

// Open opens an export — a local FILE, or s3://BUCKET/KEY through c (which
// may be nil for local files) — and reads it through once: each line must
// be an SQS message in JSON with a MessageId and a Body, no MessageId
// twice. A line that is not is returned as a *sqsjson.LineError, before
// anything uses the file.
func Open(ctx context.Context, ref string, c func(context.Context) (S3, error)) (*File, error) {
	file := &File{Name: ref, remove: func() {}}
	loc, isS3, err := ParseS3(ref)
	switch {
	case err != nil:
		return nil, err
	case isS3:
		client, err := c(ctx)
		if err != nil {
			return nil, err
		}
		if file.f, file.remove, err = download(ctx, client, loc); err != nil {
			return nil, err
		}
	default:
		if file.f, err = os.Open(ref); err != nil {
			return nil, err
		}
	}
	if file.Count, err = file.check(); err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// check reads every line and counts the messages.
func (f *File) check() (int, error) {
	r, err := f.rewind()
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	ids := map[string]int{}
	line, n := 0, 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var m struct {
			MessageId *string
			Body      *string
		}
		switch err := json.Unmarshal(b, &m); {
		case err != nil:
			return 0, &sqsjson.LineError{Line: line, Err: fmt.Errorf("not a JSON SQS message: %v", err)}
		case m.MessageId == nil || *m.MessageId == "":
			return 0, &sqsjson.LineError{Line: line, Err: errors.New("no MessageId: not an mfdlq export")}
		case m.Body == nil:
			return 0, &sqsjson.LineError{Line: line, Err: errors.New("no Body: not an mfdlq export")}
		case ids[*m.MessageId] > 0:
			return 0, &sqsjson.LineError{Line: line, Err: fmt.Errorf("MessageId %s again (first on line %d): each message must appear once", *m.MessageId, ids[*m.MessageId])}
		}
		ids[*m.MessageId] = line
		n++
	}
	if err := sc.Err(); err != nil {
		return 0, &sqsjson.LineError{Line: line + 1, Err: err}
	}
	return n, nil
}

// Messages returns a reader over the messages from the first.
func (f *File) Messages() (*sqsjson.Reader, error) {
	r, err := f.rewind()
	if err != nil {
		return nil, err
	}
	return sqsjson.NewReader(r)
}

// rewind goes back to the start, through gzip when the file is gzipped
// (told by its magic bytes, whatever its name).
func (f *File) rewind() (io.Reader, error) {
	if _, err := f.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f.f, 64<<10)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &sqsjson.LineError{Line: 1, Err: fmt.Errorf("gzip: %v", err)}
		}
		return gz, nil
	}
	return br, nil
}

// Close closes the file and removes a downloaded copy.
func (f *File) Close() {
	f.f.Close()
	f.remove()
}

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
	"strconv"
	"strings"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// File is an export opened for reading, every line checked first. An
// export that went in parts (PartName) is read as one: its parts one after
// another, streamed, never held in memory.
type File struct {
	// Name is the FILE or s3:// URL given: the first part.
	Name string
	// Parts names every part read, the first included, when there are
	// several; nil for one file.
	Parts []string
	// Count is the messages it holds, every part included.
	Count int
	// Incomplete: the manifest says the export failed after these parts
	// (each holds messages it deleted).
	Incomplete bool
	files      []*os.File
	remove     []func()
	want       []int // each part's count per its manifest; nil without one
}

// maxLine bounds one line: a message of 256 KiB (1 MiB with extended
// payloads), its attributes and JSON escaping.
const maxLine = 4 << 20

// Open opens an export — a local FILE, or s3://BUCKET/KEY through c (which
// may be nil for local files) — with the parts that follow it (PartName
// 2, 3, … until one is missing), and reads it through once: each line
// must be an SQS message in JSON with a MessageId and a Body, no MessageId
// twice in any part. A line that is not is returned as a
// *sqsjson.LineError, before anything uses the file. Parts in S3 are
// downloaded into private temporary files, removed by Close.
func Open(ctx context.Context, ref string, c func(context.Context) (S3, error)) (*File, error) {
	file := &File{Name: ref}
	loc, isS3, err := ParseS3(ref)
	switch {
	case err != nil:
		return nil, err
	case isS3:
		client, err := c(ctx)
		if err != nil {
			return nil, err
		}
		err = file.openS3(ctx, client, loc)
		if err != nil {
			file.Close()
			return nil, err
		}
	default:
		if err = file.openLocal(ref); err != nil {
			file.Close()
			return nil, err
		}
	}
	if file.Count, err = file.check(); err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

func (f *File) add(h *os.File, name string, remove func()) {
	f.files, f.remove = append(f.files, h), append(f.remove, remove)
	f.Parts = append(f.Parts, name)
}

// check reads every line of every part and counts the messages.
func (f *File) check() (int, error) {
	ids := map[string]string{}
	n := 0
	for i := range f.files {
		k, err := f.checkPart(i, ids)
		if err == nil && f.want != nil && k != f.want[i] {
			err = fmt.Errorf("%w: %d messages, the manifest says %d", ErrPartMismatch, k, f.want[i])
		}
		if err != nil {
			if len(f.files) > 1 {
				return 0, fmt.Errorf("%s: %w", f.Parts[i], err)
			}
			return 0, err
		}
		n += k
	}
	if len(f.Parts) == 1 {
		f.Parts = nil
	}
	return n, nil
}

func (f *File) checkPart(i int, ids map[string]string) (int, error) {
	r, err := rewind(f.files[i])
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
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
		case ids[*m.MessageId] != "":
			return 0, &sqsjson.LineError{Line: line, Err: fmt.Errorf("MessageId %s again (first on line %s): each message must appear once", *m.MessageId, ids[*m.MessageId])}
		}
		ids[*m.MessageId] = strconv.Itoa(line)
		if len(f.files) > 1 {
			ids[*m.MessageId] += " of part " + strconv.Itoa(i+1)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return 0, &sqsjson.LineError{Line: line + 1, Err: err}
	}
	return n, nil
}

// Messages returns a reader over the messages from the first, part after
// part.
func (f *File) Messages() (*sqsjson.Reader, error) {
	rs := make([]io.Reader, 0, 2*len(f.files))
	for _, h := range f.files {
		r, err := rewind(h)
		if err != nil {
			return nil, err
		}
		// A newline between parts: a part's last line always ends.
		rs = append(rs, r, strings.NewReader("\n"))
	}
	return sqsjson.NewReader(io.MultiReader(rs...))
}

// rewind goes back to the start of h, through gzip when it is gzipped
// (told by its magic bytes, whatever its name).
func rewind(h *os.File) (io.Reader, error) {
	if _, err := h.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(h, 64<<10)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &sqsjson.LineError{Line: 1, Err: fmt.Errorf("gzip: %v", err)}
		}
		return gz, nil
	}
	return br, nil
}

// Close closes the file and removes downloaded copies.
func (f *File) Close() {
	for _, h := range f.files {
		h.Close()
	}
	for _, rm := range f.remove {
		rm()
	}
}

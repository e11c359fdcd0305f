package sqsjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds one JSON Lines record. An SQS message is at most 256 KiB of
// body (1 MiB with extended payloads); attributes and escaping can double it.
const maxLine = 4 << 20

// LineError is a problem with one record of an input file. Line is 1-based;
// for a {"Messages": [...]} document it is the index of the message plus one.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader streams messages from either JSON Lines or a {"Messages": [...]}
// document, detected from the first non-space byte of the input. It holds
// one message in memory at a time, so files of millions of messages work.
type Reader struct {
	lines *bufio.Scanner
	doc   *json.Decoder
	line  int
	err   error
}

// NewReader detects the format of r and returns a streaming Reader.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := peekNonSpace(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &Reader{lines: bufio.NewScanner(bytes.NewReader(nil))}, nil
		}
		return nil, err
	}
	if isDocument(br, first) {
		dec := json.NewDecoder(br)
		if err := openMessagesArray(dec); err != nil {
			return nil, &LineError{Line: 1, Err: err}
		}
		return &Reader{doc: dec}, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &Reader{lines: sc}, nil
}

// Next returns the next message, io.EOF at the end, or a *LineError.
func (r *Reader) Next() (*Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.doc != nil {
		return r.nextInDocument()
	}
	for r.lines.Scan() {
		r.line++
		b := bytes.TrimSpace(r.lines.Bytes())
		if len(b) == 0 {
			continue
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			r.err = &LineError{Line: r.line, Err: fmt.Errorf("not a JSON SQS message: %v", err)}
			return nil, r.err
		}
		if m.MessageId == "" {
			r.err = &LineError{Line: r.line, Err: errors.New("no MessageId: not an SQS message")}
			return nil, r.err
		}
		return &m, nil
	}
	if err := r.lines.Err(); err != nil {
		r.err = &LineError{Line: r.line + 1, Err: err}
		return nil, r.err
	}
	r.err = io.EOF
	return nil, io.EOF
}

// Line is the line (JSON Lines) or message index (document) of the message
// Next returned last.
func (r *Reader) Line() int { return r.line }

func (r *Reader) nextInDocument() (*Message, error) {
	if !r.doc.More() {
		r.err = io.EOF
		return nil, io.EOF
	}
	r.line++
	var m Message
	if err := r.doc.Decode(&m); err != nil {
		r.err = &LineError{Line: r.line, Err: fmt.Errorf("not a JSON SQS message: %v", err)}
		return nil, r.err
	}
	if m.MessageId == "" {
		r.err = &LineError{Line: r.line, Err: errors.New("no MessageId: not an SQS message")}
		return nil, r.err
	}
	return &m, nil
}

func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return b, br.UnreadByte()
		}
	}
}

// isDocument tells a {"Messages": [...]} document from JSON Lines: both start
// with '{', but a document's first key is "Messages" (the AWS CLI prints it
// pretty, with a newline after the brace; JSON Lines puts a whole message on
// the first line, whose first key is MessageId).
func isDocument(br *bufio.Reader, first byte) bool {
	if first != '{' {
		return false
	}
	head, _ := br.Peek(4096)
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return false
	}
	tok, err = dec.Token()
	return err == nil && tok == "Messages"
}

func openMessagesArray(dec *json.Decoder) error {
	want := []json.Token{json.Delim('{'), "Messages", json.Delim('[')}
	for _, w := range want {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("not a {\"Messages\": [...]} document: %v", err)
		}
		if tok != w {
			return fmt.Errorf("not a {\"Messages\": [...]} document: found %v", tok)
		}
	}
	return nil
}

// ReadAll reads every message of r. For large inputs use NewReader and Next.
func ReadAll(r io.Reader) ([]Message, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	var out []Message
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, *m)
	}
}

// Writer writes messages as JSON Lines.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter returns a JSON Lines writer; call Flush when done.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Write appends one message as one line.
func (w *Writer) Write(m *Message) error { return w.enc.Encode(m) }

// Flush writes buffered lines to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// WriteAll streams msgs as JSON Lines in the SQS API's message shape (the
// shape of samples.jsonl and of inspect --out), for
// incident.Workspace.WriteWith and incident.WriteFileAtomic.
func WriteAll(msgs []Message) func(io.Writer) error {
	return func(w io.Writer) error {
		jw := NewWriter(w)
		for i := range msgs {
			if err := jw.Write(&msgs[i]); err != nil {
				return err
			}
		}
		return jw.Flush()
	}
}

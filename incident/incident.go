// Package incident is the incident workspace: a directory that every runbook
// step appends one event to (events.jsonl) and writes its artifact into.
// Later steps and the report read from it, never from another step's memory.
//
// The directory holds raw message bodies, which are personal data, and mfdlq
// often runs as a privileged user: a new directory is created 0700 and
// every file in it 0600; an existing one must be a real directory owned by
// the user and writable by no one else (Check), nothing that exists is ever
// chmod-ed, every file is opened with O_NOFOLLOW, and every artifact is
// written to a temporary file and renamed inside the directory.
//
// Where incidents live (root.go, find.go): by default in one per-user root
// ($XDG_STATE_HOME/mfdlq/incidents, else ~/.local/state/mfdlq/incidents),
// so a step finds its queue's open incident from any directory; an
// existing ./incidents is still read. An incident is open until a record
// closes it, which record does only once its DLQ is empty, or with --close.
package incident

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	dirMode  = 0o700
	fileMode = 0o600
)

// Event is one line of events.jsonl: what one step did, with its figures.
// Earlier events are never rewritten; a step run twice appends twice and the
// latest one counts.
//
// Inputs and Figures are the step's own JSON: each step's package owns
// their types (contain.Figures, redrive.Inputs…), writes them with
// SetInputs/SetFigures and every reader decodes them with the same type
// through DecodeInputs/DecodeFigures, so a renamed figure breaks the build
// rather than a report.
type Event struct {
	Step     string          `json:"step"`
	Time     time.Time       `json:"time"`
	Queue    string          `json:"queue,omitempty"`
	QueueURL string          `json:"queue_url,omitempty"`
	Account  string          `json:"account,omitempty"`
	Region   string          `json:"region,omitempty"`
	Command  []string        `json:"command,omitempty"`
	Inputs   json.RawMessage `json:"inputs,omitempty"`
	Figures  json.RawMessage `json:"figures,omitempty"`
	Verdict  string          `json:"verdict,omitempty"`
	Artifact string          `json:"artifact,omitempty"`
}

// SetInputs stores v, the step's inputs type, as the event's inputs.
func (ev *Event) SetInputs(v any) error {
	b, err := encodeRaw(ev.Step, "inputs", v)
	if err == nil {
		ev.Inputs = b
	}
	return err
}

// SetFigures stores v, the step's figures type, as the event's figures.
func (ev *Event) SetFigures(v any) error {
	b, err := encodeRaw(ev.Step, "figures", v)
	if err == nil {
		ev.Figures = b
	}
	return err
}

// Set sets both the inputs and the figures of a step's event: what every
// step writes.
func (ev *Event) Set(inputs, figures any) error {
	return errors.Join(ev.SetInputs(inputs), ev.SetFigures(figures))
}

// DecodeInputs reads the event's inputs into v, a pointer to the step's
// inputs type. No inputs leave v as it is. A field of another type (a file
// mfdlq did not write) is left out and named in the error while the other
// fields are still filled, so a lenient reader may use v regardless.
func (ev Event) DecodeInputs(v any) error { return decodeRaw(ev.Step, "inputs", ev.Inputs, v) }

// DecodeFigures reads the event's figures into v, as DecodeInputs does.
func (ev Event) DecodeFigures(v any) error { return decodeRaw(ev.Step, "figures", ev.Figures, v) }

func encodeRaw(step, what string, v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", step, what, err)
	}
	return json.RawMessage(bytes.TrimRight(b.Bytes(), "\n")), nil
}

func decodeRaw(step, what string, raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
		// A figure written from a float64 by an older mfdlq (500.0, 5e2)
		// is still a count: read whole numbers as integers.
		err = json.Unmarshal(wholeNumbers(raw), v)
	}
	if err != nil {
		return fmt.Errorf("%s event's %s: %w", step, what, err)
	}
	return nil
}

// wholeNumbers rewrites every number of raw that is whole but written as a
// float (500.0, 5e2) as an integer, leaving strings alone.
func wholeNumbers(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(raw))
			out, i = append(out, raw[i:j]...), j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(raw) && strings.IndexByte("+-.eE0123456789", raw[j]) >= 0 {
				j++
			}
			num := raw[i:j]
			if f, err := strconv.ParseFloat(string(num), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				num = strconv.AppendInt(nil, int64(f), 10)
			}
			out, i = append(out, num...), j
		default:
			out, i = append(out, c), i+1
		}
	}
	return out
}

// Workspace is an open incident directory.
type Workspace struct {
	Dir string
}

// Path returns the path of an artifact inside the workspace.
func (w *Workspace) Path(name string) string { return filepath.Join(w.Dir, name) }

// Has tells whether an artifact exists.
func (w *Workspace) Has(name string) bool {
	_, err := os.Lstat(w.Path(name))
	return err == nil
}

// Append adds one event to events.jsonl. The line is written with a single
// write on an O_APPEND file and synced, so a crash leaves either the whole
// event or none of it.
func (w *Workspace) Append(ev Event) error {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", ev.Step, err)
	}
	return w.AppendLine(EventsFile, b)
}

// AppendLine adds line and a newline to an append-only artifact in a
// single write on an O_APPEND file (0600, never through a symbolic link),
// synced: a crash leaves the whole line or none of it.
func (w *Workspace) AppendLine(name string, line []byte) error {
	f, err := w.OpenAppend(name)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", name, err)
	}
	return f.Close()
}

// Events returns every event in the order they were appended. A torn last
// line (a crash mid-write on a filesystem without atomic appends) is skipped.
func (w *Workspace) Events() ([]Event, error) {
	return ReadJSONLines[Event](w.Path(EventsFile), nil)
}

// Latest returns the most recent event of a step; ok is false when the step
// has not run in this incident.
func (w *Workspace) Latest(step string) (ev Event, ok bool, err error) {
	events, err := w.Events()
	if err != nil {
		return Event{}, false, err
	}
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Step == step {
			return events[i], true, nil
		}
	}
	return Event{}, false, nil
}

// WriteFile writes an artifact atomically (temporary file, sync, rename), 0600.
func (w *Workspace) WriteFile(name string, data []byte) error {
	return w.WriteWith(name, func(wr io.Writer) error {
		_, err := wr.Write(data)
		return err
	})
}

// WriteJSON writes v as indented JSON into an artifact.
func (w *Workspace) WriteJSON(name string, v any) error {
	return w.WriteWith(name, func(wr io.Writer) error {
		enc := json.NewEncoder(wr)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	})
}

// WriteWith streams an artifact through fill, atomically and 0600.
func (w *Workspace) WriteWith(name string, fill func(io.Writer) error) error {
	return WriteFileAtomic(w.Path(name), fill)
}

// ReadJSON decodes an artifact into v. It returns an error wrapping
// os.ErrNotExist when the artifact is absent.
func (w *Workspace) ReadJSON(name string, v any) error {
	b, err := w.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// ReadFile reads an artifact, never through a symbolic link.
func (w *Workspace) ReadFile(name string) ([]byte, error) {
	return readFile(w.Path(name))
}

// OpenAppend opens an append-only artifact (a journal), 0600, never
// through a symbolic link.
func (w *Workspace) OpenAppend(name string) (*os.File, error) {
	return openFile(w.Path(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND)
}

// Open opens an artifact for reading, never through a symbolic link.
func (w *Workspace) Open(name string) (*os.File, error) {
	return openFile(w.Path(name), os.O_RDONLY)
}

// WriteFileAtomic writes path through fill into a temporary file beside it,
// 0600, synced, then renamed over path, so readers never see half a file.
// It replaces whatever path holds — an artifact's planted link is
// replaced, never followed — so a path the operator names is checked with
// Replaceable first.
func WriteFileAtomic(path string, fill func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	err = tmp.Chmod(fileMode)
	if err == nil {
		err = fill(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// Replaceable tells whether a path the operator names (--out) may be
// written over by WriteFileAtomic: it does not exist or is a regular
// file. A rename replaces whatever the name holds — a named pipe someone
// reads, a symbolic link, a device (/dev/full, run as root) — so anything
// else is a *NotRegularError; cmd checks --out with it before any AWS
// call and again before the write.
func Replaceable(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return &NotRegularError{Path: path, Kind: "a symbolic link"}
	case !st.Mode().IsRegular():
		return &NotRegularError{Path: path, Kind: fileKind(st.Mode())}
	}
	return nil
}

package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Originals is the archive of a redrive --transform: before a repaired
// copy is sent, the original it replaces is appended here and fsynced, so
// that whatever happens next — a crash of mfdlq or of the machine included
// — every message that left the DLQ in a repaired form can be put back as
// it was. The file is an export (JSON Lines of SQS messages, what
// `redrive --from-file` replays); each record carries
// sqsjson.AttrOriginalOf (the DLQ) and sqsjson.AttrTransformRun instead of
// sqsjson.AttrExportedFrom, so that replaying it into its DLQ is taken as
// the undo it is.
//
// Each DLQ message is kept once (kept): a message is kept again when its
// copy was not sent the first time — its send ran out of retries and it
// came back, a second run of the incident repairs it after a refusal — and
// a file holding a MessageId twice is refused whole by --from-file, so
// the undo could put back nothing. Memory: a 16-byte digest per original
// (about 32 MB for a million), and the encoding of the batches of one
// group commit (Append) in reused buffers. It is safe for concurrent use.
//
// A path ending in .gz is written compressed (OpenOriginals): each write
// is one whole gzip member (the batches of the Appends one fsync
// covers), written with one write and fsynced, so the file is at every
// moment a readable .jsonl.gz (gzip readers, and the export reader, read
// the members one after another) and a crash leaves at most a torn last
// member, whose copies were never sent. The originals take about a fifth
// of their size (measured at scale in docs/redrive-figures.md), and the
// encoding stays within a write.
type Originals struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	dlqARN  string
	run     string
	written int
	// pending holds the records encoded and not yet taken (queued of
	// them): write number next. synced is the last write known to be on
	// stable storage. err is the first failed write or fsync: every
	// Append after it fails.
	pending      []byte
	maxPending   int        // bytes of pending past which Append waits (pendingBound)
	taken        *sync.Cond // on mu: pending was taken, or err set
	queued       int
	next, synced uint64
	err          error
	names        []string          // appendRecord's scratch
	torn         int64             // bytes of a torn last line cut on open
	kept         map[[16]byte]bool // digests of the MessageIds in the file or pending
	// smu lets one write and fsync run at a time (commit); out, gz and
	// zbuf are that writer's.
	smu  sync.Mutex
	out  []byte
	gz   *gzip.Writer // nil: an uncompressed file (an older incident's)
	zbuf bytes.Buffer // one write's gzip member
}

// pendingBound is the pending write's size past which an Append waits for
// it to be taken: a few batches of the largest messages (10 × 1 MiB), far
// above what the group commit gathers at --rate max with messages of a
// few KiB.
const pendingBound = 32 << 20

// OpenOriginals opens (or creates, 0600, never through a symbolic link)
// the originals file at path for appending. Its last line may have no
// newline: a whole record whose newline an editor dropped is kept (the
// newline is put back: its repaired copy may have been sent, and the undo
// needs it), and only a torn record — a crash mid-write, whose original
// was not durable, so its copy was never sent — is cut back to the last
// whole line, which Torn then says (the file stays readable by
// --from-file, which refuses a bad line).
func OpenOriginals(path, dlqARN, run string) (*Originals, error) {
	f, err := incident.OpenRegular(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	st, err := f.Stat()
	compressed := strings.HasSuffix(path, ".gz")
	var torn int64
	if err == nil && compressed {
		torn, err = mendMembers(f, st.Size())
	} else if err == nil {
		torn, err = mendTail(f, st.Size())
	}
	var kept map[[16]byte]bool
	if err == nil {
		var r io.Reader = io.NewSectionReader(f, 0, 1<<62)
		if compressed && st.Size() > torn {
			r, err = gzip.NewReader(r)
		} else if compressed {
			r = strings.NewReader("")
		}
		if err == nil {
			kept, err = keptIDs(r)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("originals %s: %w", path, err)
	}
	o := &Originals{f: f, path: path, dlqARN: dlqARN, run: run, torn: torn, kept: kept, next: 1, maxPending: pendingBound}
	o.taken = sync.NewCond(&o.mu)
	if compressed {
		// BestSpeed: the run is CPU-bound at --rate max, and a batch of
		// alike JSON messages compresses well even so.
		o.gz, _ = gzip.NewWriterLevel(&o.zbuf, gzip.BestSpeed)
	}
	return o, nil
}

// mendMembers cuts f, a .jsonl.gz of gzip members, back to the end of its
// last whole member and returns how many bytes it cut: a member a crash
// cut short (its copies were never sent). It counts the bytes each member
// takes (gzip reads a ByteReader without reading ahead).
func mendMembers(f *os.File, size int64) (cut int64, err error) {
	if size == 0 {
		return 0, nil
	}
	cr := &countingReader{r: bufio.NewReader(io.NewSectionReader(f, 0, size))}
	var end int64
	zr, err := gzip.NewReader(cr)
	for err == nil {
		zr.Multistream(false)
		if _, err = io.Copy(io.Discard, zr); err != nil {
			break
		}
		end = cr.n
		err = zr.Reset(cr)
	}
	switch {
	case errors.Is(err, io.EOF) && end == size:
		return 0, nil
	case !errors.Is(err, io.ErrUnexpectedEOF):
		// Not a member cut short but a damaged one: its originals may
		// have been sent, so nothing is cut.
		return 0, fmt.Errorf("a damaged gzip member at byte %d (%v): restore the file, or move it aside to start a new one", end, err)
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	return size - end, f.Sync()
}

// countingReader counts the bytes read through it; it is a ByteReader,
// so gzip reads exactly a member's bytes and no more.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// keptIDs reads the MessageIds of the records already in r (an earlier
// run of the incident), as digests.
func keptIDs(r io.Reader) (map[[16]byte]bool, error) {
	kept := map[[16]byte]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		var m struct{ MessageId string }
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.MessageId != "" {
			kept[idDigest(m.MessageId)] = true
		}
	}
	return kept, sc.Err()
}

func idDigest(id string) [16]byte {
	sum := sha256.Sum256([]byte(id))
	return [16]byte(sum[:16])
}

// Torn says what OpenOriginals cut from the file's end ("" when nothing):
// a torn record, whose copy was never sent.
func (o *Originals) Torn() string {
	if o.torn == 0 {
		return ""
	}
	return fmt.Sprintf("%s: cut a torn last line of %d bytes, not a whole record (a write cut short: its copy was never sent)", o.path, o.torn)
}

// mendTail ends f with a newline: a last line that is a whole record gets
// its newline back; anything else after the last newline is cut, and how
// many bytes is returned.
func mendTail(f *os.File, size int64) (cut int64, err error) {
	end := size
	var chunk [4096]byte
	for end > 0 {
		n := min(int64(len(chunk)), end)
		if _, err := f.ReadAt(chunk[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk[:n], '\n'); i >= 0 {
			end = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	if end == size {
		return 0, nil
	}
	if size-end <= maxLine {
		tail := make([]byte, size-end)
		if _, err := f.ReadAt(tail, end); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if wholeRecord(tail) {
			if _, err := f.Write([]byte("\n")); err != nil {
				return 0, err
			}
			return 0, f.Sync()
		}
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	return size - end, f.Sync()
}

// wholeRecord tells a line that is a complete original: an SQS message in
// JSON with a MessageId and a Body, as Append writes them.
func wholeRecord(line []byte) bool {
	var m sqsjson.Message
	line = bytes.TrimSpace(line)
	return len(line) > 0 && json.Unmarshal(line, &m) == nil && m.MessageId != "" && m.Body != ""
}

// Path is the file's path, for the undo command.
func (o *Originals) Path() string { return o.path }

// Written is how many originals this run appended.
func (o *Originals) Written() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.written
}

// Append writes msgs, the originals of the copies about to be sent, as
// received (receipt handle left out), and returns once they are on stable
// storage: when it returns nil they survive a crash; when it returns an
// error none of the copies may be sent. It is a group commit: each Append
// encodes its records into the pending write, and one Append at a time
// takes what is pending, writes it with one write (one gzip member in a
// compressed file) and fsyncs; the Appends that encoded while it ran
// share the next write. One fsync each cost the --transform path a third
// of the bare loop's throughput, and a gzip member each (a Huffman table
// built for ten records) a tenth of its CPU. A failed write or fsync
// fails every Append after it.
func (o *Originals) Append(msgs []sqsjson.Message) error {
	o.mu.Lock()
	// The pending write holds a copy of the batches waiting for it; past
	// maxPending an Append waits until it is taken, so the copies stay
	// within a bound however large the messages (up to 1 MiB) and however
	// many workers wait, instead of doubling what the batches in flight
	// hold.
	for len(o.pending) >= o.maxPending && o.err == nil {
		o.taken.Wait()
	}
	seq, err := o.encode(msgs)
	o.mu.Unlock()
	if err != nil {
		return err
	}
	return o.commit(seq)
}

// encode appends the records of the originals of msgs not kept yet to the
// pending write and returns the number of the write the caller waits for:
// the pending one, or when msgs added nothing (each kept by an earlier
// Append, whose write may still be under way) the last one taken. Called
// with o.mu held.
func (o *Originals) encode(msgs []sqsjson.Message) (uint64, error) {
	if o.err != nil {
		return 0, o.err
	}
	for i := range msgs {
		d := idDigest(msgs[i].MessageId)
		if o.kept[d] {
			continue // kept by an earlier batch or run: the same original
		}
		o.kept[d] = true
		o.pending, o.names = appendRecord(o.pending, &msgs[i], o.dlqARN, o.run, o.names)
		o.queued++
	}
	if len(o.pending) == 0 {
		return o.next - 1, nil
	}
	return o.next, nil
}

// commit returns once write seq is on stable storage: the first Append
// to hold o.smu when it is not takes the pending records (write seq: every
// write taken before it finished under o.smu) and writes and fsyncs them.
func (o *Originals) commit(seq uint64) error {
	o.smu.Lock()
	defer o.smu.Unlock()
	o.mu.Lock()
	switch {
	case o.synced >= seq:
		o.mu.Unlock()
		return nil
	case o.err != nil:
		defer o.mu.Unlock()
		return o.err
	}
	o.out, o.pending = o.pending, o.out[:0]
	n := o.queued
	o.queued = 0
	o.next++
	o.taken.Broadcast()
	o.mu.Unlock()
	err := o.writeOut()
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		// The file may hold part of the write now: no Append after it
		// may trust what it writes.
		if o.err == nil {
			o.err = err
		}
		o.taken.Broadcast()
		return o.err
	}
	o.synced = seq
	o.written += n
	return nil
}

// writeOut writes o.out (one gzip member in a compressed file) with one
// write and fsyncs it. Called with o.smu held.
func (o *Originals) writeOut() error {
	out := o.out
	if o.gz != nil {
		// One whole member per write: the file reads whole after any
		// Append that returned.
		o.zbuf.Reset()
		o.gz.Reset(&o.zbuf)
		if _, err := o.gz.Write(out); err != nil {
			return fmt.Errorf("originals %s: compress: %w", o.path, err)
		}
		if err := o.gz.Close(); err != nil {
			return fmt.Errorf("originals %s: compress: %w", o.path, err)
		}
		out = o.zbuf.Bytes()
	}
	if _, err := o.f.Write(out); err != nil {
		return fmt.Errorf("originals %s: %w", o.path, err)
	}
	if err := o.f.Sync(); err != nil {
		return fmt.Errorf("originals %s: sync: %w", o.path, err)
	}
	if cap(o.out) > 4<<20 {
		o.out = nil // one huge write must not pin its buffer for the run
	}
	if o.zbuf.Cap() > 4<<20 {
		o.zbuf = bytes.Buffer{}
	}
	return nil
}

// Close closes the file; every Append that returned nil is already durable.
func (o *Originals) Close() error {
	o.smu.Lock()
	defer o.smu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.f.Close()
}

// OriginalOf tells a record of an originals file and the DLQ it was taken
// from.
func OriginalOf(m *sqsjson.Message) (dlqARN string, ok bool) {
	arn, ok := m.Attributes[sqsjson.AttrOriginalOf]
	return arn, ok && arn != ""
}

package archive

import (
	"context"
	"fmt"
)

// Part is one object of an export that went in parts: a whole JSON Lines
// file (a whole gzip stream when gzipped) on its own, completed and read
// back before exactly its messages were deleted.
type Part struct {
	Location string `json:"location"`
	Messages int    `json:"messages"`
	Deleted  int    `json:"deleted"`
	Bytes    int64  `json:"bytes"`
	SHA256   string `json:"sha256"`
}

// partExts are the extensions a part name keeps at its end, so that
// gunzip and editors still know the part for what it is.
var partExts = []string{".jsonl.gz", ".ndjson.gz", ".json.gz", ".jsonl", ".ndjson", ".json", ".gz"}

// PartName names part n (from 1) of an export to name (a key or a path):
// part 1 is name itself, part n ≥ 2 puts ".part-NNNN" before the
// extension — orders.jsonl.gz, orders.part-0002.jsonl.gz, … — so that
// an export that fits in one part is the one object it always was, and
// redrive --from-file of the first part finds the others.
func PartName(name string, n int) string {
	if n <= 1 {
		return name
	}
	stem, ext := splitExt(name)
	return fmt.Sprintf("%s.part-%04d%s", stem, n, ext)
}

// s3Parts is a Sink of S3 parts: writes go to the current part, Cut
// completes it (uploaded, read back) and opens the next one. An export
// with Delete cuts at the in-flight limit, deletes exactly the part's
// messages, and reads on: no more than one part is ever in flight.
type s3Parts struct {
	c       S3
	loc     S3Location
	cur     *s3Sink
	parts   []Part
	pending int // messages written into cur
	// id names this export on each part (metadata) and in its manifest.
	id         string
	manifested bool // the manifest was written once
	// stage, when set, is a durable directory (the incident's) where the
	// part under way is staged, so that it can be checkpointed (fsynced)
	// and its messages deleted before the upload: a FIFO group's lock
	// would otherwise cut a part every ten messages. staged counts those.
	stage  string
	staged int
}

// stageIn moves the part under way, still empty, to a durable directory.
func (p *s3Parts) stageIn(dir string) error {
	next, err := newS3Sink(p.c, p.partLoc(len(p.parts)+1), dir)
	if err != nil {
		return err
	}
	p.cur.Abort()
	p.cur, p.stage = next.(*s3Sink), dir
	p.cur.id = p.id
	return nil
}

// NewS3PartsSink prepares an export to loc that may go in parts
// (PartName); part 1 is loc.
func NewS3PartsSink(c S3, loc S3Location) (Sink, error) {
	s, err := NewS3Sink(c, loc)
	if err != nil {
		return nil, err
	}
	p := &s3Parts{c: c, loc: loc, cur: s.(*s3Sink), id: newExportID()}
	p.cur.id = p.id
	return p, nil
}

func (p *s3Parts) Write(b []byte) (int, error) { return p.cur.Write(b) }

// wrote counts messages written into the current part.
func (p *s3Parts) wrote(n int) { p.pending += n }

// cut completes the current part and opens the next: the part is an
// object read back as written when cut returns nil.
func (p *s3Parts) cut(ctx context.Context) (*Part, error) {
	part, err := p.commitCur(ctx)
	if err != nil {
		return nil, err
	}
	// The manifest lists the part before a message of it is deleted.
	if err := p.writeManifest(ctx, false); err != nil {
		// Unlisted, the part is not one a replay reads: its messages are
		// not deleted (made visible again), and the object must go.
		if part.Deleted == 0 {
			p.parts = p.parts[:len(p.parts)-1]
			return nil, fmt.Errorf("%w: %s was uploaded but is not listed, its messages stay in the DLQ: remove that object before a replay", err, part.Location)
		}
		// Staged checkpoints deleted some of its messages: it is their
		// only copy and is named with the parts that hold deleted ones.
		return nil, fmt.Errorf("%w: %s was uploaded but is not listed; it holds %d deleted messages (the other %d stay in the DLQ too)", err, part.Location, part.Deleted, part.Messages-part.Deleted)
	}
	next, err := newS3Sink(p.c, p.partLoc(len(p.parts)+1), p.stage)
	if err != nil {
		return nil, err
	}
	p.cur = next.(*s3Sink)
	p.cur.id = p.id
	return part, nil
}

func (p *s3Parts) partLoc(n int) S3Location {
	return S3Location{Bucket: p.loc.Bucket, Key: PartName(p.loc.Key, n)}
}

func (p *s3Parts) commitCur(ctx context.Context) (*Part, error) {
	loc, err := p.cur.Commit(ctx)
	if err != nil {
		return nil, err
	}
	p.parts = append(p.parts, Part{Location: loc, Messages: p.pending, Deleted: p.staged, Bytes: p.cur.Size(), SHA256: p.cur.SHA256()})
	p.pending, p.staged = 0, 0
	return &p.parts[len(p.parts)-1], nil
}

// Commit completes the last part; a last part with no message after a
// cut is not uploaded. The location is part 1's: redrive --from-file of it
// reads every part.
func (p *s3Parts) Commit(ctx context.Context) (string, error) {
	if len(p.parts) > 0 && p.pending == 0 {
		p.cur.Abort()
	} else if _, err := p.commitCur(ctx); err != nil {
		return "", err
	}
	if p.manifested {
		if err := p.writeManifest(ctx, true); err != nil {
			return "", err
		}
	}
	return p.loc.String(), nil
}

// Abort throws the current part away; parts completed stay, and so does
// a staged part whose messages were deleted (keepStaged).
func (p *s3Parts) Abort() {
	if p.staged == 0 {
		p.cur.Abort()
	}
}

// keepStaged keeps the staged part that holds deleted messages (cut back to
// its last checkpoint) and names it; "" when there is none.
func (p *s3Parts) keepStaged(rescue string) (string, error) {
	if p.staged == 0 {
		return "", nil
	}
	return p.cur.fileSink.Keep(rescue)
}

// Size is the bytes of every part.
func (p *s3Parts) Size() int64 {
	var n int64
	for _, pt := range p.parts {
		n += pt.Bytes
	}
	return n
}

// SHA256 is the one part's, "" when there are several (each part has its
// own).
func (p *s3Parts) SHA256() string {
	if len(p.parts) == 1 {
		return p.parts[0].SHA256
	}
	return ""
}

// completed are the parts uploaded so far, for an error that must say
// where deleted messages are.
func (p *s3Parts) completed() []string {
	out := make([]string, len(p.parts))
	for i, pt := range p.parts {
		out[i] = pt.Location
	}
	return out
}

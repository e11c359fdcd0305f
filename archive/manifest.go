package archive

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Manifest is NAME.parts.json beside an export that went in parts: the
// parts the export wrote, in order, each with its message count, size and
// SHA-256, under an id of the export. A replay reads exactly these parts
// and refuses one missing anywhere, edited, duplicated or another
// export's — an export's parts are hostile input once written. The
// export writes it after each part is complete (Complete false) and once
// more at the end (true); before a part's messages are deleted, the
// manifest lists the part. An export of one object has none, as before.
type Manifest struct {
	Format   string         `json:"format"`
	ExportID string         `json:"export_id"`
	Complete bool           `json:"complete"`
	Parts    []ManifestPart `json:"parts"`
}

// ManifestPart is one part in a Manifest; Name is its last path element.
type ManifestPart struct {
	Name     string `json:"name"`
	Messages int    `json:"messages"`
	Bytes    int64  `json:"bytes"`
	SHA256   string `json:"sha256"`
}

// manifestFormat names the manifest's shape.
const manifestFormat = "mfdlq-export-parts/1"

// maxManifest bounds a manifest read back: 100,000 parts and more.
const maxManifest = 16 << 20

// ManifestName is the manifest beside the export name (a key or a path).
func ManifestName(name string) string { return name + ".parts.json" }

// Errors of a replay of parts, each naming the part.
var (
	// ErrPartMismatch is a part whose count, size or digest is not what
	// the manifest says: edited, replaced, a duplicate or another export's.
	ErrPartMismatch = errors.New("the part is not the one the export wrote")
	// ErrPartForeign is a part beyond the manifest's last.
	ErrPartForeign = errors.New("a part the export did not write")
	// ErrManifest is a manifest that cannot be read as one.
	ErrManifest = errors.New("not an mfdlq parts manifest")
)

func newExportID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// parseManifest reads and checks a manifest for the export first (a key
// or a path): every part named as PartName names it, in order.
func parseManifest(r io.Reader, first, where string) (*Manifest, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if len(b) > maxManifest {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", where, ErrManifest, maxManifest)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", where, ErrManifest, err)
	}
	if m.Format != manifestFormat || m.ExportID == "" || len(m.Parts) == 0 {
		return nil, fmt.Errorf("%s: %w: format %q, export id %q, %d parts", where, ErrManifest, m.Format, m.ExportID, len(m.Parts))
	}
	for i, p := range m.Parts {
		if want := path.Base(PartName(first, i+1)); p.Name != want || p.Messages < 0 || p.Bytes < 0 || !sha256RE.MatchString(p.SHA256) {
			return nil, fmt.Errorf("%s: %w: part %d is %q with %d messages, %d bytes, sha256 %q; want %s", where, ErrManifest, i+1, p.Name, p.Messages, p.Bytes, p.SHA256, want)
		}
	}
	return &m, nil
}

// manifest is the export's manifest so far.
func (p *s3Parts) manifest(complete bool) Manifest {
	m := Manifest{Format: manifestFormat, ExportID: p.id, Complete: complete}
	for _, pt := range p.parts {
		loc, _, _ := ParseS3(pt.Location)
		m.Parts = append(m.Parts, ManifestPart{Name: path.Base(loc.Key), Messages: pt.Messages, Bytes: pt.Bytes, SHA256: pt.SHA256})
	}
	return m
}

// writeManifest puts the manifest beside part 1: the first time only if
// the key is free (If-None-Match), after that over its own.
func (p *s3Parts) writeManifest(ctx context.Context, complete bool) error {
	b, err := json.MarshalIndent(p.manifest(complete), "", "  ")
	if err != nil {
		return err
	}
	loc := S3Location{Bucket: p.loc.Bucket, Key: ManifestName(p.loc.Key)}
	in := &s3.PutObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key), Body: bytes.NewReader(append(b, '\n')),
		ContentType: aws.String("application/json"), Metadata: map[string]string{metaExportID: p.id}}
	if !p.manifested {
		in.IfNoneMatch = aws.String("*")
	}
	if _, err := p.c.PutObject(ctx, in); err != nil {
		if st := httpStatus(err); !p.manifested && (st == http.StatusPreconditionFailed || st == http.StatusConflict) {
			if ours, _ := p.ownsManifest(ctx, loc); ours {
				p.manifested = true
				return nil
			}
			return fmt.Errorf("%s: %w (created by someone else while this export ran)", loc, ErrExists)
		}
		return fmt.Errorf("write the parts manifest %s: %w", loc, err)
	}
	p.manifested = true
	return nil
}

// ownsManifest tells whether the manifest at loc is this export's: a PUT
// the SDK retried after its answer was lost meets its own object.
func (p *s3Parts) ownsManifest(ctx context.Context, loc S3Location) (bool, error) {
	out, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)})
	if err != nil {
		return false, err
	}
	return out.Metadata[metaExportID] == p.id, nil
}

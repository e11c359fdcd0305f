package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/incident"
)

// ErrPartMissing is an export in parts with a part missing before the
// last: reading on would skip its messages without a word.
var ErrPartMissing = errors.New("a part is missing")

// partStore is where an export's parts are, a directory or an S3 prefix:
// how to open its manifest and part n (from 1), whether part n is there,
// and the part numbers beyond n. gone is what an open wraps for an object
// that is not there.
type partStore struct {
	ref      string // the first part: a path or an s3:// URL
	gone     error
	manifest func() (*os.File, func(), error)
	part     func(n int) (*os.File, func(), error)
	exists   func(n int) bool
	after    func(n int) []int
}

// openLocal opens a local export (openParts).
func (f *File) openLocal(ref string) error {
	open := func(name string) (*os.File, func(), error) { h, err := openRead(name); return h, func() {}, err }
	return f.openParts(partStore{ref: ref, gone: fs.ErrNotExist,
		manifest: func() (*os.File, func(), error) { return open(ManifestName(ref)) },
		part:     func(n int) (*os.File, func(), error) { return open(PartName(ref, n)) },
		exists:   func(n int) bool { _, err := os.Lstat(PartName(ref, n)); return err == nil },
		after:    func(n int) []int { return localPartsAfter(ref, n) },
	})
}

// openRead opens a local part or manifest for reading through
// incident.OpenRegular: a named pipe in its place is refused, never waited
// on.
func openRead(name string) (*os.File, error) { return incident.OpenRegular(name, os.O_RDONLY) }

// openS3 opens an export in S3 (openParts), each object downloaded.
func (f *File) openS3(ctx context.Context, c S3, loc S3Location) error {
	partLoc := func(n int) S3Location { return S3Location{Bucket: loc.Bucket, Key: PartName(loc.Key, n)} }
	return f.openParts(partStore{ref: loc.String(), gone: errNoObject,
		manifest: func() (*os.File, func(), error) {
			return download(ctx, c, S3Location{Bucket: loc.Bucket, Key: ManifestName(loc.Key)}, true)
		},
		part: func(n int) (*os.File, func(), error) { return download(ctx, c, partLoc(n), false) },
		exists: func(n int) bool {
			next := partLoc(n)
			_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(next.Bucket), Key: aws.String(next.Key)})
			return err == nil
		},
		after: func(n int) []int { return s3PartsAfter(ctx, c, loc, n) },
	})
}

// openParts opens an export: the parts its manifest lists, or, without
// one (an export of one file, or of an older mfdlq), part after part until
// one is missing — refused when any later part is there.
func (f *File) openParts(s partStore) error {
	mf, rm, err := s.manifest()
	switch {
	case err == nil:
		defer rm()
		defer mf.Close()
		m, err := parseManifest(mf, s.ref, ManifestName(s.ref))
		if err != nil {
			return err
		}
		return f.openListed(m, s)
	case !errors.Is(err, s.gone):
		return err
	}
	for n := 1; ; n++ {
		h, remove, err := s.part(n)
		if n > 1 && errors.Is(err, s.gone) {
			return gapCheck(s.ref, n, s.after(n))
		}
		if err != nil {
			return err
		}
		f.add(h, PartName(s.ref, n), remove)
	}
}

// openListed opens exactly the parts m lists, checking each one's size
// and SHA-256 against the manifest (its count is checked with its lines),
// and refuses a part after the last.
func (f *File) openListed(m *Manifest, s partStore) error {
	f.want = make([]int, len(m.Parts))
	for i, p := range m.Parts {
		n := i + 1
		h, remove, err := s.part(n)
		if errors.Is(err, s.gone) {
			return fmt.Errorf("part %d of %d, %s: %w: restore it (export.json of the export's incident lists every part with its sha256); nothing sent", n, len(m.Parts), PartName(s.ref, n), ErrPartMissing)
		}
		if err != nil {
			return err
		}
		f.add(h, PartName(s.ref, n), remove)
		size, sum, err := digest(h)
		if err != nil {
			return fmt.Errorf("%s: %w", PartName(s.ref, n), err)
		}
		if size != p.Bytes || sum != p.SHA256 {
			return fmt.Errorf("part %d of %d, %s: %w (%d bytes, sha256 %s; the manifest says %d bytes, sha256 %s): edited, replaced, a copy of another part or another export's; nothing sent",
				n, len(m.Parts), PartName(s.ref, n), ErrPartMismatch, size, sum, p.Bytes, p.SHA256)
		}
		f.want[i] = p.Messages
	}
	if n := len(m.Parts) + 1; s.exists(n) {
		return fmt.Errorf("%s: %w: %s lists %d parts; move it away; nothing sent", PartName(s.ref, n), ErrPartForeign, ManifestName(s.ref), len(m.Parts))
	}
	f.Incomplete = !m.Complete
	return nil
}

// digest is the size and SHA-256 of h, read from its start.
func digest(h *os.File) (int64, string, error) {
	if _, err := h.Seek(0, io.SeekStart); err != nil {
		return 0, "", err
	}
	sum := sha256.New()
	n, err := io.Copy(sum, h)
	return n, hex.EncodeToString(sum.Sum(nil)), err
}

// gapCheck ends the read of an export without a manifest at its first
// missing part n: complete when no later part exists, else refused naming
// the parts missing before the last one there.
func gapCheck(ref string, n int, later []int) error {
	last := 0
	for _, k := range later {
		last = max(last, k)
	}
	if last <= n {
		return nil
	}
	missing := fmt.Sprintf("part %d", n)
	if last-1 > n {
		missing = fmt.Sprintf("parts %d to %d (some may be there)", n, last-1)
	}
	return fmt.Errorf("%s: %w, yet %s is there: restore %s (export.json of the export's incident lists every part), or move the parts one by one; nothing sent",
		PartName(ref, n), ErrPartMissing, PartName(ref, last), missing)
}

// partNumber is n when name is PartName(first, n), n ≥ 2.
func partNumber(first, name string) (int, bool) {
	stem, ext := splitExt(first)
	rest, ok := strings.CutPrefix(name, stem+".part-")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, ext)
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 2 || PartName(first, n) != name {
		return 0, false
	}
	return n, true
}

// localPartsAfter lists the part numbers > n beside ref.
func localPartsAfter(ref string, n int) []int {
	entries, err := os.ReadDir(filepath.Dir(ref))
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		if k, ok := partNumber(filepath.Base(ref), e.Name()); ok && k > n {
			out = append(out, k)
		}
	}
	return out
}

// s3PartsAfter lists the part numbers > n beside loc (s3:ListBucket, which
// the replay needs anyway for S3 to tell a missing part by 404). A listing
// that fails finds none: the read ends at n, as it did before.
func s3PartsAfter(ctx context.Context, c S3, loc S3Location, n int) []int {
	stem, _ := splitExt(loc.Key)
	var out []int
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(loc.Bucket), Prefix: aws.String(stem + ".part-")})
	for pages := 0; p.HasMorePages() && pages < 100; pages++ {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out
		}
		for _, o := range page.Contents {
			if k, ok := partNumber(loc.Key, aws.ToString(o.Key)); ok && k > n {
				out = append(out, k)
			}
		}
	}
	return out
}

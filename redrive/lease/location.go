package lease

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mfdlq/mfdlq/s3name"
)

// S3's naming rules for keys, and mfdlq's for a key that must name
// itself, for --lease (the bucket's rule is s3name's, as for export's
// --out).

// maxKey is S3's limit on an object key, in bytes of UTF-8.
const maxKey = 1024

// checkPath refuses a key or prefix S3 would refuse or that names a path
// other than itself (two spellings of one object are two objects): over
// max bytes, invalid UTF-8, control characters (a terminal escape) or a
// backslash, and empty, "." or ".." segments (a leading slash, "//").
func checkPath(k string, max int) error {
	switch {
	case len(k) > max:
		return fmt.Errorf("it is %d bytes, at most %d fit", len(k), max)
	case !utf8.ValidString(k):
		return fmt.Errorf("it is not valid UTF-8")
	case strings.IndexFunc(k, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }) >= 0:
		return fmt.Errorf("it holds a control character or a backslash")
	}
	for _, seg := range strings.Split(k, "/") {
		switch seg {
		case "":
			return fmt.Errorf("it has an empty segment (a leading slash or //): write it as a plain path such as dlq/leases")
		case ".", "..":
			return fmt.Errorf("it has a %q segment: write it as a plain path such as dlq/leases", seg)
		}
	}
	return nil
}

// Location is where the operator keeps S3 leases: --lease s3://BUCKET/PREFIX.
type Location struct{ Bucket, Prefix string }

// maxPrefix is the longest --lease prefix whose keys fit S3's 1,024
// bytes: the key adds "/", the account (12), "/", the region (at most
// 32), "/", the queue name (at most 80, unescaped) and ".lease".
const maxPrefix = maxKey - len("/") - (12 + 1 + 32 + 1 + 80 + len(".lease"))

// ParseLocation reads --lease: s3://BUCKET or s3://BUCKET/PREFIX (one
// trailing slash allowed). The bucket follows S3's naming rules and the
// prefix export's rules for a key (checkPath): no ".", ".." or
// empty segment, no backslash or control character, short enough for
// every lease key under it — two spellings of one prefix would be two
// leases for one DLQ. Any other form is an error naming the expected
// one, before any AWS call.
func ParseLocation(s string) (Location, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return Location{}, fmt.Errorf("%.80q: use s3://BUCKET/PREFIX (the queue tag is the default lease)", s)
	}
	b, p, _ := strings.Cut(rest, "/")
	if err := s3name.CheckBucket(b); err != nil {
		return Location{}, fmt.Errorf("%.80q: %w", s, err)
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return Location{Bucket: b}, nil
	}
	if err := checkPath(p, maxPrefix); err != nil {
		return Location{}, fmt.Errorf("%.80q: the prefix: %w", s, err)
	}
	return Location{Bucket: b, Prefix: p}, nil
}

// Key is the object of the DLQ named by its account, region and name:
// PREFIX/ACCOUNT/REGION/NAME.lease, so one prefix serves every DLQ.
func (l Location) Key(account, region, name string) string {
	k := url.PathEscape(orDash(account)) + "/" + url.PathEscape(orDash(region)) + "/" + url.PathEscape(name) + ".lease"
	if l.Prefix == "" {
		return k
	}
	return l.Prefix + "/" + k
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

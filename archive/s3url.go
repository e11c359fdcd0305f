package archive

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mfdlq/mfdlq/s3name"
)

// S3Location is an s3://BUCKET/KEY.
type S3Location struct{ Bucket, Key string }

func (l S3Location) String() string { return "s3://" + l.Bucket + "/" + l.Key }

// maxKey is S3's limit on an object key, in bytes of UTF-8.
const maxKey = 1024

// ParseS3 parses s3://BUCKET/KEY; ok is false when s is not an s3:// URL
// at all, err names what is wrong with one. Everything S3 would refuse,
// and every key whose path a reader or a console would resolve to another
// object ("a/../b", "./x", "a//b"), is refused here, before any call: an
// export must land on the key the plan names, and an odd key is a typo.
func ParseS3(s string) (loc S3Location, ok bool, err error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return S3Location{}, false, nil
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if err := s3name.CheckBucket(bucket); err != nil {
		return S3Location{}, true, err
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return S3Location{}, true, fmt.Errorf("%q: name the object, e.g. s3://%s/orders-dlq.jsonl.gz", s, bucket)
	}
	if err := checkKey(key); err != nil {
		return S3Location{}, true, fmt.Errorf("%q: %w", s, err)
	}
	return S3Location{Bucket: bucket, Key: key}, true, nil
}

// checkKey refuses a key S3 would refuse or that names a path other than
// itself: empty, "." or ".." segments, a leading slash, control or
// invalid characters.
func checkKey(k string) error {
	switch {
	case len(k) > maxKey:
		return fmt.Errorf("the key is %d bytes, S3 allows %d", len(k), maxKey)
	case !utf8.ValidString(k):
		return fmt.Errorf("the key is not valid UTF-8")
	case strings.IndexFunc(k, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }) >= 0:
		return fmt.Errorf("the key holds a control character or a backslash")
	}
	for _, seg := range strings.Split(k, "/") {
		switch seg {
		case "":
			return fmt.Errorf("the key has an empty segment (a leading slash or //): name it as a plain path such as dlq/orders-dlq.jsonl.gz")
		case ".", "..":
			return fmt.Errorf("the key has a %q segment: name it as a plain path such as dlq/orders-dlq.jsonl.gz", seg)
		}
	}
	return nil
}

package archive

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// S3Location is an s3://BUCKET/KEY.
type S3Location struct{ Bucket, Key string }

func (l S3Location) String() string { return "s3://" + l.Bucket + "/" + l.Key }

// bucketRE is S3's general purpose bucket naming rule: 3-63 characters of
// lowercase letters, digits, dots and hyphens, starting and ending with a
// letter or digit. checkBucket adds the rest of the rules.
var bucketRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// Prefixes and suffixes S3 reserves (access points, Object Lambda, S3
// Express, table buckets): no general purpose bucket bears them.
var (
	reservedBucketPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedBucketSuffixes = []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

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
	if err := checkBucket(bucket); err != nil {
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

// checkBucket applies S3's bucket naming rules.
func checkBucket(b string) error {
	bad := func(why string) error {
		return fmt.Errorf("%q: not a bucket name (%s)", b, why)
	}
	switch {
	case !bucketRE.MatchString(b):
		return bad("3-63 lowercase letters, digits, dots and hyphens")
	case strings.Contains(b, ".."):
		return bad("two dots in a row")
	case strings.Contains(b, ".-") || strings.Contains(b, "-."):
		return bad("a dot next to a hyphen")
	}
	if _, err := netip.ParseAddr(b); err == nil {
		return bad("it is an IP address")
	}
	for _, p := range reservedBucketPrefixes {
		if strings.HasPrefix(b, p) {
			return bad("the prefix " + p + " is reserved")
		}
	}
	for _, sfx := range reservedBucketSuffixes {
		if strings.HasSuffix(b, sfx) {
			return bad("the suffix " + sfx + " is reserved")
		}
	}
	return nil
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

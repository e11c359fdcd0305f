package lease

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// S3's naming rules for buckets and keys, and mfdlq's for a key that must
// name itself, for --lease: the rules archive/s3url.go applies to
// export's keys (a domain package this leaf may not import; a base
// package would put s3api's dependencies under redrive's import chain).

var bucketRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// Prefixes and suffixes S3 reserves (access points, Object Lambda, S3
// Express, table buckets): no general purpose bucket bears them.
var (
	reservedBucketPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedBucketSuffixes = []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

// maxKey is S3's limit on an object key, in bytes of UTF-8.
const maxKey = 1024

// checkBucket applies S3's general purpose bucket naming rules.
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

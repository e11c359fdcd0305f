// Package s3name holds S3's naming rule for general purpose buckets, as
// the S3 user guide states it, for the places mfdlq takes an s3:// URL
// from a person (export's --out, redrive's --lease). It is pure: no SDK,
// so any layer may import it.
package s3name

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// bucketRE is 3-63 characters of lowercase letters, digits, dots and
// hyphens, starting and ending with a letter or digit; CheckBucket adds
// the rest of the rules.
var bucketRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// Prefixes and suffixes S3 reserves (access points, Object Lambda, S3
// Express, table buckets): no general purpose bucket bears them.
var (
	reservedPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedSuffixes = []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

// CheckBucket refuses a name S3 would refuse for a general purpose bucket,
// saying which rule it breaks.
func CheckBucket(b string) error {
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
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(b, p) {
			return bad("the prefix " + p + " is reserved")
		}
	}
	for _, sfx := range reservedSuffixes {
		if strings.HasSuffix(b, sfx) {
			return bad("the suffix " + sfx + " is reserved")
		}
	}
	return nil
}

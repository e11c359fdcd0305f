package s3name

import (
	"strings"
	"testing"
)

func TestCheckBucket(t *testing.T) {
	for name, want := range map[string]string{
		"orders-archive":        "",
		"a.b-c":                 "",
		"ab":                    "3-63",
		strings.Repeat("a", 64): "3-63",
		"Orders":                "3-63",
		"-orders":               "3-63",
		"a..b":                  "two dots",
		"a.-b":                  "a dot next to a hyphen",
		"192.168.5.4":           "IP address",
		"xn--orders":            "prefix xn--",
		"orders-s3alias":        "suffix -s3alias",
		"orders--x-s3":          "suffix --x-s3",
	} {
		err := CheckBucket(name)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v, want ok", name, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want an error saying %q", name, err, want)
		}
	}
}

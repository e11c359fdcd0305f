package transform

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// validName and validType are SQS's rules as these regexps state them,
// matched by hand (a regexp per attribute per message was a tenth of a
// repair's CPU): every string of their alphabets up to three characters,
// and random longer ones, agree.
func TestValidNameAndType(t *testing.T) {
	name := regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	typ := regexp.MustCompile(`^(String|Number|Binary)(\.[^\s]+)?$`)
	alphabet := []string{"a", "Z", "0", "_", "-", ".", " ", "\t", "\n", "\f", "\r", "\v", "é", "\x85", "\xff", "/", ""}
	var all []string
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				all = append(all, a+b+c)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		s := ""
		for range r.IntN(12) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		all = append(all, s)
	}
	for _, s := range all {
		if got, want := validName(s), name.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v, the regexp says %v", s, got, want)
		}
		for _, prefix := range []string{"String", "Number", "Binary", "Strin", "binary", ""} {
			if got, want := validType(prefix+s), typ.MatchString(prefix+s); got != want {
				t.Errorf("validType(%q) = %v, the regexp says %v", prefix+s, got, want)
			}
		}
	}
}

package redact

import "strings"

// group is a run of digits or alphanumerics inside a candidate, by offset.
type group struct{ start, end int }

// groups splits a candidate on its separators (spaces, dashes).
func groups(s string, sep func(byte) bool) []group {
	var out []group
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || sep(s[i]) {
			if start >= 0 {
				out = append(out, group{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// bestWindows finds, left to right, the longest run of whole groups that
// passes valid, and continues after it. Windows are whole groups only: a
// contiguous run of digits is a card as a whole or not at all, so that the
// substrings of a long numeric id are never taken for cards.
func bestWindows(s string, gs []group, valid func(string) bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(gs); i++ {
		for j := len(gs) - 1; j >= i; j-- {
			if valid(s[gs[i].start:gs[j].end]) {
				out = append(out, [2]int{gs[i].start, gs[j].end})
				i = j
				break
			}
		}
	}
	return out
}

// cardWindows returns the card numbers inside a run of digit groups, e.g.
// the first four groups of "4111 1111 1111 1111 123".
func cardWindows(s string) [][2]int {
	if len(s) < 13 {
		return nil
	}
	gs := groups(s, func(c byte) bool { return c == ' ' || c == '-' })
	return bestWindows(s, gs, validCard)
}

// ibanWindows returns the IBAN at the start of a candidate, e.g. the first
// 24 characters of "ES9121000418450200051332 SEPA", in any case.
func ibanWindows(s string) [][2]int {
	gs := groups(s, func(c byte) bool { return c == ' ' })
	for j := len(gs) - 1; j >= 0; j-- {
		if validIBAN(s[:gs[j].end]) {
			return [][2]int{{0, gs[j].end}}
		}
	}
	return nil
}

// validCard accepts 13–19 digits that pass the Luhn check and whose length
// fits their issuer's prefix (Visa 4: 13, 16, 19; Mastercard 51–55 and
// 2221–2720: 16; Amex 34, 37: 15; Diners 30, 36, 38, 39: 14, 16; JCB 35,
// Discover, UnionPay and Maestro 5, 6: 13–19). Epoch timestamps start with
// 1 and compact dates with 19 or 20: they stay.
func validCard(s string) bool {
	d := digitsOf(s)
	n := len(d)
	if n < 13 || n > 19 || !luhn(d) {
		return false
	}
	switch d[0] {
	case '4':
		return n == 13 || n == 16 || n == 19
	case '2':
		p := atoi(d[:4])
		return p >= 2221 && p <= 2720 && n == 16
	case '3':
		switch d[1] {
		case '4', '7':
			return n == 15
		case '0', '6', '8', '9':
			return n == 14 || n == 16
		case '5':
			return n >= 16
		}
	case '5':
		if d[1] >= '1' && d[1] <= '5' {
			return n == 16
		}
		return true
	case '6':
		return true
	}
	return false
}

func atoi(d string) int {
	n := 0
	for _, c := range d {
		n = n*10 + int(c-'0')
	}
	return n
}

// luhn reports whether the digit string passes the Luhn checksum.
func luhn(d string) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// ibanLength is the IBAN length of the countries that issue most of them;
// another country code is checked by mod 97 alone, within 15–34.
var ibanLength = map[string]int{
	"AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "CH": 21, "CY": 28,
	"CZ": 24, "DE": 22, "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23,
	"GR": 27, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IS": 26, "IT": 27, "LI": 21, "LT": 20,
	"LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "QA": 29,
	"RO": 24, "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TR": 26, "UA": 29,
}

// validIBAN checks the ISO 13616 mod-97 checksum, in any case, spaced or
// not, and the length of the country's IBAN when it is known.
func validIBAN(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	if n, ok := ibanLength[s[:2]]; ok && len(s) != n {
		return false
	}
	rearranged := s[4:] + s[:4]
	rem := 0
	for _, c := range rearranged {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

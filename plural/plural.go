// Package plural writes a count with its noun the way people say it: "1
// message", "340 messages", "2 entries" — never "message(s)"; and a stored
// snake_case value ("not_proven") as words.
package plural

import (
	"strconv"
	"strings"
)

// Of is n with the noun, singular for exactly one. The plural is one's
// regular English plural (-s, -es, consonant+y → -ies) unless many gives
// it: Of(2, "query") is "2 queries", Of(3, "person", "people") "3 people".
func Of(n int, one string, many ...string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many...)
}

// Noun is the noun alone, as Of chooses it.
func Noun(n int, one string, many ...string) string {
	if n == 1 || n == -1 {
		return one
	}
	if len(many) > 0 {
		return many[0]
	}
	return regular(one)
}

func regular(one string) string {
	// The last word takes the plural: "error signature" → "error signatures".
	head, word := "", one
	if i := strings.LastIndexByte(one, ' '); i >= 0 {
		head, word = one[:i+1], one[i+1:]
	}
	switch {
	case word == "":
		return one
	case strings.HasSuffix(word, "y") && len(word) > 1 && !strings.ContainsRune("aeiou", rune(word[len(word)-2])):
		return head + word[:len(word)-1] + "ies"
	case strings.HasSuffix(word, "s") || strings.HasSuffix(word, "x") || strings.HasSuffix(word, "ch") || strings.HasSuffix(word, "sh"):
		return head + word + "es"
	}
	return head + word + "s"
}

// Spoken is a stored value (a verdict in an event or JSON: "not_alive",
// "not_proven") as a person reads it: "not alive", "not proven".
func Spoken(v string) string { return strings.ReplaceAll(v, "_", " ") }

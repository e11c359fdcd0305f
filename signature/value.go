package signature

import (
	"encoding/json"
	"regexp"
	"strings"
)

// valueREs find the value a validation error rejects, in the phrasings of
// common validators: zod ("received 'X'"), pydantic ("input_value='X'"),
// Jackson ("from String \"X\""), jsonschema ("'X' is not one of"), and
// generic ones ("got 'X'", "value 'X' is not valid"). The first group is
// the value.
var valueREs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\breceived:? ['"]([^'"\n]{1,100})['"]`),
	regexp.MustCompile(`\binput_value=['"]([^'"\n]{1,100})['"]`),
	regexp.MustCompile(`\binput_value=([^,\]\s'"]{1,100})`),
	regexp.MustCompile(`\bfrom String "([^"\n]{1,100})"`),
	regexp.MustCompile(`(?i)['"]([^'"\n]{1,100})['"] is not (?:one of|a valid|valid|an allowed|allowed)`),
	regexp.MustCompile(`(?i)\b(?:got|value|enum value) ['"]([^'"\n]{1,100})['"]`),
}

// ValueOf returns the value a validation error says it rejected ("" when
// the text names none): "PARTIALLY_REFUNDED" in "Invalid enum value.
// Expected 'PAID' | 'REFUNDED', received 'PARTIALLY_REFUNDED'". A JSON
// list of issues gives its first issue's "received" when that is a value.
// The whole text is read: pydantic names the input on the third line.
// classify weighs it: a rejected value every message of a group shares is
// a contract change (poison); values that differ per message are data.
func ValueOf(text string) string {
	if len(text) > maxHeadlineInput {
		text = strings.ToValidUTF8(text[:maxHeadlineInput], "")
	}
	if v := issueValue(text); v != "" {
		return v
	}
	for _, re := range valueREs {
		if m := re.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return ""
}

// issueValue is the "received" of the first issue of a JSON list of issues,
// bare or after a "Name: " prefix.
func issueValue(text string) string {
	i := strings.IndexByte(text, '[')
	if i < 0 || i > 120 || !json.Valid([]byte(strings.TrimSpace(text[i:]))) {
		return ""
	}
	var issues []map[string]json.RawMessage
	if json.Unmarshal([]byte(text[i:]), &issues) != nil || len(issues) == 0 {
		return ""
	}
	if v := str(issues[0], "received"); v != "" {
		return v
	}
	if m := valueREs[0].FindStringSubmatch(str(issues[0], "message")); m != nil {
		return m[1]
	}
	return ""
}

// maskValue replaces the rejected value in a headline by <value>, so that
// messages failing validation on different values share one signature
// (and one group) and the group can tell shared from differing values.
func maskValue(line, v string) string {
	if v == "" {
		return line
	}
	for _, q := range []string{"'", `"`} {
		line = strings.ReplaceAll(line, q+v+q, q+"<value>"+q)
	}
	return strings.ReplaceAll(line, "input_value="+v, "input_value=<value>")
}

package classify

import (
	"encoding/json"
	"strconv"
)

// versionKeys are the top-level JSON keys that name a message's schema, in
// the order they are preferred.
var versionKeys = []string{"version", "schema_version", "schemaVersion", "schema"}

// VersionOf returns the schema-version-like field of a JSON object body: its
// key and its value as text. ok is false when the body is not a JSON object
// or has none of those keys.
func VersionOf(body string) (key, value string, ok bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &obj) != nil {
		return "", "", false
	}
	for _, k := range versionKeys {
		raw, found := obj[k]
		if !found {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return k, s, true
		}
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			return k, n.String(), true
		}
		return k, strconv.Quote(string(raw)), true
	}
	return "", "", false
}

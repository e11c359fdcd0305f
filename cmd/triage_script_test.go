package cmd

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMaxLines is `max-lines FILE N`: FILE (stdout, stderr or a path) has
// at most N lines — triage's answer fits one screen.
func cmdMaxLines(ts *testscript.TestScript, _ bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: max-lines FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	text := ts.ReadFile(args[0])
	if got := strings.Count(text, "\n"); got > n || got == 0 {
		ts.Fatalf("%s has %d lines, want 1 to %d:\n%s", args[0], got, n, text)
	}
}

// cmdJSONHas is `json-has FILE KEY…`: FILE is one JSON object holding
// every KEY (a.b for a nested one, a.0 for an array's first), none of
// them null.
func cmdJSONHas(ts *testscript.TestScript, _ bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: json-has FILE KEY...")
	}
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	ts.Check(dec.Decode(&doc))
	if dec.More() {
		ts.Fatalf("%s holds more than one JSON document", args[0])
	}
	for _, key := range args[1:] {
		var v any = doc
		for _, part := range strings.Split(key, ".") {
			ok := false
			switch c := v.(type) {
			case map[string]any:
				v, ok = c[part]
			case []any:
				if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(c) {
					v, ok = c[i], true
				}
			}
			if !ok || v == nil {
				ts.Fatalf("%s: no %s", args[0], key)
			}
		}
	}
}

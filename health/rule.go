package health

import (
	"context"
	"regexp"
	"strings"

	"github.com/mfdlq/mfdlq/untrusted"
)

// ruleRE finds the alarms an AlarmRule names: ALARM(name), OK("name"),
// INSUFFICIENT_DATA(arn:…:alarm:name).
var ruleRE = regexp.MustCompile(`\b(?:ALARM|OK|INSUFFICIENT_DATA)\s*\(\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^()\s"',]+))\s*\)`)

// ruleAlarms are the alarm names rule refers to, each once.
func ruleAlarms(rule string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ruleRE.FindAllStringSubmatch(rule, -1) {
		n := m[1] + m[2] + m[3]
		if i := strings.Index(n, ":alarm:"); strings.HasPrefix(n, "arn:") && i >= 0 {
			n = n[i+len(":alarm:"):]
		}
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// children reads the alarms every OK composite's rule names, down to
// maxRuleDepth, into known, and returns each composite's descendants, and
// for a composite whose descendants could not be read, why.
func (g *Gate) children(ctx context.Context, alarms []Alarm, known map[string]Alarm) (out map[string][]string, unread map[string]string) {
	out, unread = map[string][]string{}, map[string]string{}
	for _, top := range alarms {
		if top.Type != TypeComposite || top.State != StateOK {
			continue
		}
		level := []Alarm{top}
		seen := map[string]bool{top.Name: true}
		for depth := 0; depth < maxRuleDepth && len(level) > 0; depth++ {
			names, fetch := ruleLevel(level, seen, known)
			if len(fetch) > 0 {
				got, err := describe(ctx, g.cw, fetch)
				if err != nil {
					unread[top.Name] = untrusted.Shorten(untrusted.Terminal(err.Error()), 200)
				}
				for n, a := range got {
					known[n] = a
				}
			}
			level = level[:0:0]
			for _, n := range names {
				out[top.Name] = append(out[top.Name], n)
				if a, ok := known[n]; ok && a.Type == TypeComposite {
					level = append(level, a)
				}
			}
		}
	}
	return out, unread
}

// ruleLevel is the alarms the rules of level name that are not seen yet
// (marked seen now), up to MaxAlarms, and those of them not yet known,
// to fetch.
func ruleLevel(level []Alarm, seen map[string]bool, known map[string]Alarm) (names, fetch []string) {
	for _, c := range level {
		for _, n := range ruleAlarms(c.rule) {
			if !seen[n] && len(names) < MaxAlarms {
				seen[n] = true
				names = append(names, n)
				if _, ok := known[n]; !ok {
					fetch = append(fetch, n)
				}
			}
		}
	}
	return names, fetch
}

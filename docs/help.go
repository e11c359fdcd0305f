// Package docs holds the Long help of the commands whose help is written
// once, here, beside their page (docs/triage.md, docs/mcp.md), and embedded
// into the binary: the help and the page are edited together.
package docs

import (
	"embed"
	"strings"
)

//go:embed help/*.txt
var help embed.FS

// LongHelp is the Long help of command (help/COMMAND.txt), "" when there is
// none; a test in cmd checks that every command that asks has one.
func LongHelp(command string) string {
	b, err := help.ReadFile("help/" + command + ".txt")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n") + "\n"
}

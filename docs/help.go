// Package docs holds the help of every command, written once, in the page
// that explains the command (docs/COMMAND.md), and embedded into the binary,
// as chezmoi takes its help from its reference pages.
//
// A page marks its command's help with a comment line naming the command,
// followed by a text block:
//
//	<!-- help: inspect … -->
//	```text
//	Receive up to --max distinct messages …
//	```
//
// `mfdlq inspect --help` prints that block (cmd adds the flags and the exit
// statuses); `<!-- example: redrive … -->` marks the examples cobra prints
// apart. The markdown reader sees the same text the terminal does, and the
// page around it does not repeat it (docs' tests check both).
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

//go:embed *.md
var pages embed.FS

// Long is command's Long help ("mfdlq" for the root), ending in one newline.
// A command's help is part of the build: Long panics when no page holds it,
// so a test that builds the command tree fails rather than a command
// showing an empty help.
func Long(command string) string {
	return section("help", command) + "\n"
}

// Example is command's examples, without a final newline, as cobra's
// Example field and the generated references expect. Like Long, it panics
// when no page holds them.
func Example(command string) string {
	return section("example", command)
}

// Sections is every help and example the pages hold, keyed "help: NAME"
// and "example: NAME", each with the page it is in: for the test that every
// one is some command's.
func Sections() map[string]string {
	load()
	out := make(map[string]string, len(parsed.where))
	for k, v := range parsed.where {
		out[k] = v
	}
	return out
}

var parsed struct {
	sync.Once
	text  map[string]string // "help: NAME" → the block's lines
	where map[string]string // "help: NAME" → the page
	err   error
}

// load parses the pages once; a page whose markers are broken is a build
// defect, said as a panic that names the page and line.
func load() {
	parsed.Do(func() { parsed.text, parsed.where, parsed.err = parse(pages) })
	if parsed.err != nil {
		panic(parsed.err)
	}
}

func section(kind, command string) string {
	load()
	t, ok := parsed.text[kind+": "+command]
	if !ok {
		panic(fmt.Sprintf("docs: no page marks <!-- %s: %s --> before a ```text block", kind, command))
	}
	return t
}

// parse reads the marked blocks of every page in pages: the text and the
// page of each, keyed "help: NAME" or "example: NAME". A marker not followed
// by a text block, a block not closed, or a command marked twice is an
// error: the help would otherwise be cut short or taken from the wrong page.
func parse(pages fs.FS) (text, where map[string]string, err error) {
	text, where = map[string]string{}, map[string]string{}
	names, err := fs.Glob(pages, "*.md")
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		b, err := fs.ReadFile(pages, name)
		if err != nil {
			return nil, nil, err
		}
		if err := scan(name, string(b), text, where); err != nil {
			return nil, nil, err
		}
	}
	return text, where, nil
}

// scan adds the marked blocks of page (named name) to text and where. It
// walks the page line by line without splitting it, since every run of
// mfdlq reads every page.
func scan(name, page string, text, where map[string]string) error {
	fenced := false // inside a code block that is no help: a marker there is an example of one
	for n, rest := 1, page; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		key, ok := marker(line)
		if !ok || fenced {
			continue
		}
		if prev, dup := where[key]; dup {
			return fmt.Errorf("docs: %s marks <!-- %s --> again (first in %s)", name, key, prev)
		}
		open, body, _ := strings.Cut(rest, "\n")
		if open != "```text" {
			return fmt.Errorf("docs: %s:%d: <!-- %s --> is not followed by a ```text block", name, n, key)
		}
		// The block ends at the first line that is the fence alone; end is
		// where that fence starts in body.
		end := -1
		switch i := strings.Index(body, "\n```\n"); {
		case body == "```" || strings.HasPrefix(body, "```\n"):
			end = 0
		case i >= 0:
			end = i + 1
		case strings.HasSuffix(body, "\n```"):
			end = len(body) - len("```")
		}
		if end < 0 {
			return fmt.Errorf("docs: %s:%d: the block of <!-- %s --> is not closed", name, n, key)
		}
		block := body[:max(0, end-1)]
		text[key], where[key] = block, name
		if block != "" {
			n += strings.Count(block, "\n") + 1
		}
		n += 2 // the opening and closing fences
		rest = strings.TrimPrefix(body[end+len("```"):], "\n")
	}
	return nil
}

// marker is the key of a line "<!-- help: NAME …" or "<!-- example: NAME
// …" ("help: NAME"), ok false for any other line.
func marker(line string) (string, bool) {
	for _, kind := range []string{"help", "example"} {
		if rest, ok := strings.CutPrefix(line, "<!-- "+kind+": "); ok {
			name, _, _ := strings.Cut(rest, " ")
			if name != "" && name != "-->" {
				return kind + ": " + name, true
			}
		}
	}
	return "", false
}

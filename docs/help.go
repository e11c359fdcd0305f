// Package docs holds the help of every command, written once, here, beside
// the pages that explain the command in full (docs/COMMAND.md), and embedded
// into the binary as chezmoi embeds its reference: help/COMMAND.txt is the
// Long help exactly as `mfdlq COMMAND --help` prints it (before the exit
// statuses, which cmd adds from its exit codes), and help/COMMAND.example.txt
// the examples where cobra prints them apart. The pages link to these files
// instead of repeating them, so a change to what a command says is made in
// one place and both readers see it.
package docs

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed help/*.txt
var help embed.FS

// Long is command's Long help (help/COMMAND.txt, "mfdlq" for the root),
// ending in one newline. A command's help is part of the build: Long
// panics when the file is missing, so a test that builds the command tree
// fails rather than a command showing an empty help.
func Long(command string) string {
	return strings.TrimRight(read(command+".txt"), "\n") + "\n"
}

// Example is command's examples (help/COMMAND.example.txt), without a final
// newline, as cobra's Example field and the generated references expect.
// Like Long, it panics when the file is missing.
func Example(command string) string {
	return strings.TrimRight(read(command+".example.txt"), "\n")
}

func read(name string) string {
	b, err := help.ReadFile("help/" + name)
	if err != nil {
		panic(fmt.Sprintf("docs: no help/%s embedded: %v", name, err))
	}
	return string(b)
}

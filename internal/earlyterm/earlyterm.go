// Package earlyterm stops mfdlq from asking the terminal anything before it
// starts. Bubble Tea v1's init asks lipgloss for the terminal's background
// (an OSC 11 query and a cursor-position query, then a wait of up to
// termenv.OSCTimeout, 5 s, for the answers): on a terminal that does not
// answer (some multiplexers, slow links) every command — even --help,
// even with NO_COLOR — started 5 s late.
//
// mfdlq draws with fixed ANSI colours and never needs the background, so
// this package states it before Bubble Tea's init runs: nothing is asked.
// It is a module of its own, named "earlyterm", because Go initialises the
// packages that are ready in the order of their import paths (the spec's
// "Package initialization", since Go 1.21): "earlyterm" sorts before
// "github.com/charmbracelet/bubbletea", and it imports only what Bubble Tea
// imports too, so it is ready first. A package of github.com/mfdlq/mfdlq
// would run after Bubble Tea's query. termenv's wait cannot be shortened
// instead: OSCTimeout is a constant.
package earlyterm

import "github.com/charmbracelet/lipgloss"

func init() {
	// The answer, given instead of asked: lipgloss's default renderer (the
	// one Bubble Tea's init reads) takes an explicit background and skips
	// the query. Dark, as most terminals are; no style of mfdlq depends on it.
	lipgloss.SetHasDarkBackground(true)
}

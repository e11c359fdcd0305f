package cmdutil

import "strings"

// SpokenPlaceholders says a signature's placeholders (signature.Normalise's
// <n>, <uuid>, <hex>, <id>, <email>, <time>, and the envelope's <value>) in
// words: a terminal never shows them raw in prose.
var SpokenPlaceholders = strings.NewReplacer(
	"<n>", "(a number)", "<uuid>", "(an id)", "<hex>", "(an id)", "<id>", "(an id)",
	"<email>", "(an email address)", "<time>", "(a time)", "<value>", "(a value)").Replace

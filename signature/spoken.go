package signature

import "strings"

// Spoken says a signature's placeholders (Of's <n>, <uuid>, <hex>,
// <id>, <email>, <time>, and maskValue's <value>) in words: a terminal
// never shows them raw in prose. Piped output keeps the signature as it is,
// the key classify groups by.
var Spoken = strings.NewReplacer(
	"<n>", "(a number)", "<uuid>", "(an id)", "<hex>", "(an id)", "<id>", "(an id)",
	"<email>", "(an email address)", "<time>", "(a time)", "<value>", "(a value)").Replace

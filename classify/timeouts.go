package classify

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
)

// A timeout (or a memory limit) is ambiguous: a slow dependency makes
// ordinary messages time out, an outsized message times out however
// healthy the dependency is. So the timed-out messages are compared with
// healthy ones — the baseline's, else the DLQ's other messages — by
// payload size, which grows with the items, pages or records a message
// declares: when only outliers time out, the message is the cause and it
// will time out again (poison); a burst over ordinary messages is the
// dependency (transient).

// sizeBuckets bounds the payload-size histogram: powers of two up to 2^39.
const sizeBuckets = 40

// sizes is a histogram of payload sizes in powers of two (bucket i holds
// sizes in [2^(i-1), 2^i)): fixed memory per group.
type sizes struct {
	n      int
	counts [sizeBuckets]int32
}

func (s *sizes) add(n int) {
	s.counts[min(bits.Len(uint(n)), sizeBuckets-1)]++
	s.n++
}

func (s *sizes) addAll(o *sizes) {
	for i, c := range o.counts {
		s.counts[i] += c
	}
	s.n += o.n
}

// quantile is the bucket holding the q-quantile.
func (s *sizes) quantile(q float64) int {
	want := int32(q * float64(s.n))
	var seen int32
	for i, c := range s.counts {
		seen += c
		if seen > want {
			return i
		}
	}
	return sizeBuckets - 1
}

// minComparable is how many reference messages a comparison needs.
const minComparable = 5

// compareTimeouts weighs a group whose error is a time or memory limit
// against healthy messages; it returns the meaning that decides and the
// evidence line ("" when nothing could be compared).
func (c *Classifier) compareTimeouts(g *acc, said meaning) (meaning, string) {
	if b := c.opts.Baseline; b != nil && b.declared.n >= minComparable && g.declared.n > 0 {
		// What the payload declares (rows: 250000) outweighs its bytes: a
		// pointer to a huge file is a small message.
		gm, rm, r90 := g.declared.quantile(0.5), b.declared.quantile(0.5), b.declared.quantile(0.9)
		if gm >= r90+2 {
			line := fmt.Sprintf("only outliers %s: the %d declare %s (%s), against %s (90%% under %d) for the baseline — the message is the cause, and it will %s again: poison",
				limitVerb(said), g.n, countText(gm), strings.Join(g.declaredNames, ", "), countText(rm), uint64(1)<<r90, limitVerb(said))
			return meaning{verdict: VerdictPoison, words: said.words, kind: said.kind, why: said.why, fact: said.fact}, line
		}
	}
	ref, what := c.timeoutReference(g)
	limit := limitVerb(said)
	if ref == nil {
		return said, fmt.Sprintf("a %s is ambiguous (a slow dependency, or an outsized message), and there is nothing to compare the %d with: classify again with --baseline FILE to tell which", said.fact.code, g.n)
	}
	gm, rm, r90 := g.sizes.quantile(0.5), ref.quantile(0.5), ref.quantile(0.9)
	switch {
	case gm >= r90+2:
		line := fmt.Sprintf("only outliers %s: the %d payloads are %s, against %s (90%% under %s) for %s — the message is the cause, and it will %s again: poison",
			limit, g.n, sizeText(gm), sizeText(rm), bytesText(uint64(1)<<r90), what, limit)
		return meaning{verdict: VerdictPoison, words: said.words, kind: said.kind, why: said.why, fact: said.fact}, line
	case gm <= rm+1:
		return said, fmt.Sprintf("the %d that %s are ordinary messages (payloads %s, against %s for %s): the dependency, not the message", g.n, limitPast(said), sizeText(gm), sizeText(rm), what)
	}
	return said, fmt.Sprintf("the %d that %s are larger than %s (payloads %s, against %s), not outliers: the dependency is the likelier cause", g.n, limitPast(said), what, sizeText(gm), sizeText(rm))
}

func limitPast(said meaning) string {
	if said.fact.limit {
		return "ran out of memory"
	}
	return "timed out"
}

// timeoutReference is what a timed-out group is compared with: the
// baseline's payload sizes, else those of the DLQ's messages whose error
// is no time or memory limit.
func (c *Classifier) timeoutReference(g *acc) (*sizes, string) {
	if b := c.opts.Baseline; b != nil && b.sizes.n >= minComparable {
		return &b.sizes, "the baseline"
	}
	var others sizes
	for _, o := range c.order {
		if o == g {
			continue
		}
		if m := o.meaning(); m.fact != nil && (m.fact.timeout || m.fact.limit) {
			continue
		}
		others.addAll(&o.sizes)
	}
	if others.n < minComparable {
		return nil, ""
	}
	return &others, "the DLQ's other messages"
}

// sizeText writes a size bucket as the range it holds, at its median:
// "a median of 8–16 KiB".
func sizeText(bucket int) string {
	if bucket == 0 {
		return "a median of 0 B"
	}
	return "a median of " + bytesText(uint64(1)<<(bucket-1)) + "–" + bytesText(uint64(1)<<bucket)
}

func bytesText(n uint64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

func limitVerb(said meaning) string {
	if said.fact.limit {
		return "run out of memory"
	}
	return "time out"
}

// countText writes a count bucket as the range it holds, at its median.
func countText(bucket int) string {
	if bucket == 0 {
		return "a median of 0"
	}
	return fmt.Sprintf("a median of %d–%d", uint64(1)<<(bucket-1), uint64(1)<<bucket)
}

// countWords are the last words of a top-level field's name that declare
// how much a message asks for: rows, record_count, page_size, lines.
var countWords = map[string]bool{"count": true, "size": true, "rows": true, "records": true, "lines": true, "pages": true,
	"entries": true, "length": true, "bytes": true, "items": true, "files": true, "parts": true, "chunks": true, "events": true}

// maxDeclaredNames bounds the field names a group remembers for evidence.
const maxDeclaredNames = 3

// declaredCount is the largest number a JSON payload declares in a
// top-level numeric field whose name says a count or a size, and that
// field's name; ok is false when it declares none.
func declaredCount(env *envelope.Envelope) (n int, name string, ok bool) {
	p := env.Payload
	if !env.PayloadJSON || env.Pointer != nil || len(p) < 2 || p[0] != '{' {
		return 0, "", false
	}
	eachMember(p, func(k, v []byte) {
		if len(v) == 0 || v[0] < '0' || v[0] > '9' {
			return
		}
		words := strings.Fields(normalise(string(k)))
		if len(words) == 0 || !countWords[words[len(words)-1]] {
			return
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f < 0 || f > 1<<50 {
			return
		}
		if !ok || int(f) > n {
			n, name, ok = int(f), string(k), true
		}
	})
	return n, name, ok
}

// addDeclared counts what the current payload declares into s (and its
// field's name into names, bounded).
func addDeclared(s *sizes, names *[]string, env *envelope.Envelope) {
	n, name, ok := declaredCount(env)
	if !ok {
		return
	}
	s.add(n)
	if names != nil && len(*names) < maxDeclaredNames && !slices.Contains(*names, name) {
		*names = append(*names, name)
	}
}

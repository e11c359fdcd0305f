package logsearch

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// storyEnd marks where a story stops: Lambda's per-invocation lines.
var storyEnd = []string{"START RequestId:", "END RequestId:", "REPORT RequestId:"}

// bounds says where one message's story ends in the lines that follow the
// line naming it: a Lambda batch logs its messages one after the other,
// with no START line between them, and the next message's exception is
// not this one's.
type bounds struct {
	id string
	// others are the other MessageIds searched for.
	others []string
	// label is what precedes the id in the line that names it ("message ",
	// `messageId":"`): a later line with the same label before another id
	// names another message.
	label string
	// request is the invocation's request id on that line, when its
	// runtime writes one (Lambda's tab-separated prefix, or a JSON log's
	// requestId): a later line of another request is another invocation.
	request string
	// own are the UUID-shaped tokens of the line naming the message (its
	// MessageId, the request id): any other in a later line names another
	// message or request, and ends the story.
	own []string
	// at is the time the line naming the message carries at its start,
	// when it carries one.
	at time.Time
}

// maxStoryGap is the longest silence inside one message's story: a later
// line that carries its own time more than this after the previous one is
// another invocation's, unless it names this invocation's request id (a
// "Task timed out" line comes after the whole timeout).
const maxStoryGap = 10 * time.Second

// boundsOf reads the bounds of id's story from first, the line that names
// it; others are the other messages searched for.
func boundsOf(id string, others []string, first string) bounds {
	b := bounds{id: id, others: others, request: requestID(first), own: uuidTokens(first)}
	b.at, _ = lineTime(first)
	if i := strings.Index(first, id); i > 0 {
		j := i
		for j > 0 && !isIDByte(first[j-1]) {
			j--
		}
		k := j
		for k > 0 && isIDByte(first[k-1]) {
			k--
		}
		if k < j {
			b.label = first[k:i]
		}
	}
	return b
}

// ends tells whether event starts another invocation's or another
// message's lines: a START, END or REPORT line; a line naming another
// message searched for, another request id, or any other UUID-shaped
// token (a MessageId not searched for); a line after a silence longer
// than maxStoryGap; a later line with the label that named this message
// before another id. prev is the time of the last line kept.
func (b bounds) ends(event string, prev time.Time) bool {
	return startsInvocation(event) || b.otherToken(event) || b.afterSilence(event, prev) ||
		b.namesOther(event) || b.otherRequest(event) || b.labelsOther(event)
}

// otherToken: event has a UUID-shaped token not on the line that named
// this message — unless it names this message (then it is about it,
// whatever else it names).
func (b bounds) otherToken(event string) bool {
	if strings.Contains(event, b.id) {
		return false
	}
	for _, tok := range uuidTokens(event) {
		if !slices.Contains(b.own, tok) {
			return true
		}
	}
	return false
}

// namesOther: event names another message searched for.
func (b bounds) namesOther(event string) bool {
	for _, o := range b.others {
		if o != b.id && strings.Contains(event, o) {
			return true
		}
	}
	return false
}

// afterSilence: event carries a time more than maxStoryGap after prev and
// does not name this invocation's request id.
func (b bounds) afterSilence(event string, prev time.Time) bool {
	at, ok := lineTime(event)
	return ok && !prev.IsZero() && at.Sub(prev) > maxStoryGap && !(b.request != "" && namesRequest(event, b.request))
}

// otherRequest: event is another invocation's, by its runtime's request id.
func (b bounds) otherRequest(event string) bool {
	r := requestID(event)
	return b.request != "" && r != "" && r != b.request
}

// labelsOther: event has the label that named this message before another
// message id.
func (b bounds) labelsOther(event string) bool {
	if b.label == "" {
		return false
	}
	for rest := event; ; {
		i := strings.Index(rest, b.label)
		if i < 0 {
			return false
		}
		rest = rest[i+len(b.label):]
		n := 0
		for n < len(rest) && isIDByte(rest[n]) {
			n++
		}
		if tok := rest[:n]; tok != b.id && looksLikeMessageID(tok) {
			return true
		}
	}
}

// trimStory splits multi-line events into lines, drops trailing blank ones
// and stops before an event that starts another invocation or names
// another message, so that their error is not taken for this message's.
func trimStory(events []string, b bounds) []string {
	var out []string
	prev := b.at
	for i, ev := range events {
		if i > 0 && b.ends(ev, prev) {
			break
		}
		if at, ok := lineTime(ev); ok {
			prev = at
		}
		for _, l := range strings.Split(strings.TrimRight(ev, "\r\n"), "\n") {
			out = append(out, strings.TrimRight(l, "\r"))
		}
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return out
}

func startsInvocation(ev string) bool {
	for _, p := range storyEnd {
		if strings.HasPrefix(ev, p) || strings.Contains(ev, "\t"+p) {
			return true
		}
	}
	return false
}

// jsonRequestID finds a structured log's request id.
var jsonRequestID = regexp.MustCompile(`"(?:requestId|request_id|awsRequestId)"\s*:\s*"([^"]{8,64})"`)

// requestID returns the request id a Lambda runtime writes on a line:
// "TIME\tREQUEST-ID\tLEVEL\tmessage", or a JSON log's requestId; "" when
// the line has none (a stack trace's continuation).
func requestID(line string) string {
	if f := strings.SplitN(line, "\t", 4); len(f) >= 3 && looksLikeMessageID(f[1]) {
		return f[1]
	}
	if m := jsonRequestID.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// looksLikeMessageID tells an id SQS (or Lambda, for a request) gives: a
// UUID, 36 characters of hex digits and dashes. Words and counts do not.
func looksLikeMessageID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// uuidTokens are the whole tokens of line shaped as a UUID (an SQS
// MessageId, a Lambda request id), at most 16.
func uuidTokens(line string) []string {
	var out []string
	for i := 0; i+36 <= len(line) && len(out) < 16; {
		if !isIDByte(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && isIDByte(line[j]) {
			j++
		}
		if looksLikeMessageID(line[i:j]) {
			out = append(out, line[i:j])
		}
		i = j
	}
	return out
}

// lineTime is the time a line carries at its start, as the Lambda runtime
// and most loggers write it: RFC 3339 ("2024-03-10T22:04:00.010Z"), with
// a space for the T or without a zone taken as UTC.
func lineTime(line string) (time.Time, bool) {
	end := strings.IndexAny(line, " \t")
	if end < 0 {
		end = len(line)
	}
	if end < 19 {
		return time.Time{}, false
	}
	head := line[:end]
	if t, err := time.Parse(time.RFC3339Nano, head); err == nil {
		return t, true
	}
	if len(line) >= 23 && line[10] == ' ' {
		if t, err := time.Parse("2006-01-02 15:04:05.000", line[:23]); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

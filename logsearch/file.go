package logsearch

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// maxFileLine bounds one line of a log export: a CloudWatch event is at most
// 256 KiB, and JSON escaping can double it.
const maxFileLine = 1 << 20

// LineTooLongError is a line of a log export over maxFileLine bytes: not
// a log export's line (a binary file, a dump without newlines), told as
// such rather than as a scanner's failure.
type LineTooLongError struct {
	Name string
	Line int // 1-based
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("%s: line %d is over %d bytes: not a log export's line (JSON Lines or text)", e.Name, e.Line, maxFileLine)
}

// fileStory is a hit in a file and the lines collected after it so far.
type fileStory struct {
	hit   hit
	lines []string
}

// SearchFile looks for each target's story in a local log export: JSON Lines
// with "timestamp" and "message" fields (also "@timestamp"/"@message", and the
// stream as "logStreamName", "log_stream" or "stream"), or plain text lines.
// Context lines come from the same stream (the whole file when lines name
// none). The export is the team's own choice of time, so the targets'
// ranges are recorded but not applied. It reads the file once, holding only
// the last few stories of each message.
func SearchFile(r io.Reader, name string, targets []Wanted, after int) (Result, error) {
	rep := newResult(MethodFile, nil, targets)
	rep.LogFile = name
	fs := fileStories{kept: map[string][]*fileStory{}, keptReq: map[string][]*fileStory{}, matches: map[string]int{}, matchesReq: map[string]int{}}
	needles := needlesOf(targets)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxFileLine)
	line := 0
	for sc.Scan() {
		line++
		// Most lines name no message and follow no match: skip them unparsed.
		// An ID is letters, digits and dashes, so JSON never escapes it.
		if len(fs.open) == 0 && !namesAny(sc.Bytes(), needles) {
			continue
		}
		if ev, ok := parseFileLine(sc.Text()); ok {
			fs.take(ev, targets, after)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return rep, &LineTooLongError{Name: name, Line: line + 1}
	} else if err != nil {
		return rep, fmt.Errorf("read %s: %w", name, err)
	}
	for i, t := range targets {
		rep.set(i, fs.record(t, targets))
	}
	return rep, nil
}

// needlesOf are the IDs a line must name to be parsed: each target's
// MessageId and request id.
func needlesOf(targets []Wanted) [][]byte {
	needles := make([][]byte, 0, len(targets))
	for _, t := range targets {
		needles = append(needles, []byte(t.MessageID))
		if t.RequestID != "" {
			needles = append(needles, []byte(t.RequestID))
		}
	}
	return needles
}

// fileStories are the stories a file search keeps, each keyed by
// MessageId: found by the MessageId (kept), and by the request id (keptReq,
// used only for a target no line names), the last maxStories of each, with
// how many lines matched; open are the stories still taking context lines.
type fileStories struct {
	kept, keptReq       map[string][]*fileStory
	matches, matchesReq map[string]int
	open                []*fileStory
}

// take feeds ev to the open stories and starts one for each target it
// names.
func (fs *fileStories) take(ev hit, targets []Wanted, after int) {
	fs.open = feed(fs.open, ev, after)
	for _, t := range targets {
		k, m, req := fs.kept, fs.matches, false
		switch {
		case strings.Contains(ev.message, t.MessageID):
		case namesRequest(ev.message, t.RequestID):
			k, m, req = fs.keptReq, fs.matchesReq, true
		default:
			continue
		}
		m[t.MessageID]++
		s := &fileStory{hit: ev, lines: []string{ev.message}}
		s.hit.byRequest = req
		k[t.MessageID] = append(k[t.MessageID], s)
		if len(k[t.MessageID]) > maxStories {
			k[t.MessageID] = k[t.MessageID][1:]
		}
		if after > 0 {
			fs.open = append(fs.open, s)
		}
	}
}

// record is target t's story: by its MessageId, else by its request id.
func (fs *fileStories) record(t Wanted, targets []Wanted) Record {
	stories, n := fs.kept[t.MessageID], fs.matches[t.MessageID]
	if len(stories) == 0 {
		stories, n = fs.keptReq[t.MessageID], fs.matchesReq[t.MessageID]
	}
	hits := make([]hit, len(stories))
	for j, s := range stories {
		hits[j] = s.hit
		hits[j].lines = s.lines
	}
	fetch := func(h hit) ([]string, error) { return h.lines, nil }
	rec, _ := story(hits, n, fetch, storyID(t, hits), targetIDs(targets))
	return byRequest(rec, t, hits)
}

func namesAny(line []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(line, n) {
			return true
		}
	}
	return false
}

// feed adds ev to the open stories of its stream and returns those still
// collecting.
func feed(open []*fileStory, ev hit, after int) []*fileStory {
	kept := open[:0]
	for _, s := range open {
		if s.hit.stream == ev.stream && s.hit.group == ev.group {
			s.lines = append(s.lines, ev.message)
		}
		if len(s.lines) <= after {
			kept = append(kept, s)
		}
	}
	return kept
}

// fileLine is the JSON shape of one exported log event.
type fileLine struct {
	Timestamp  json.RawMessage `json:"timestamp"`
	ATimestamp json.RawMessage `json:"@timestamp"`
	Message    *string         `json:"message"`
	AMessage   *string         `json:"@message"`
	Stream     string          `json:"logStreamName"`
	Stream2    string          `json:"log_stream"`
	Stream3    string          `json:"stream"`
	Group      string          `json:"logGroupName"`
	Group2     string          `json:"log_group"`
}

// parseFileLine reads one line of an export; ok is false for a blank line.
func parseFileLine(line string) (hit, bool) {
	if strings.TrimSpace(line) == "" {
		return hit{}, false
	}
	var fl fileLine
	if strings.HasPrefix(strings.TrimSpace(line), "{") && json.Unmarshal([]byte(line), &fl) == nil {
		msg := fl.Message
		if msg == nil {
			msg = fl.AMessage
		}
		if msg != nil {
			ts := fl.Timestamp
			if ts == nil {
				ts = fl.ATimestamp
			}
			return hit{
				group: cmp.Or(fl.Group, fl.Group2), stream: cmp.Or(fl.Stream, fl.Stream2, fl.Stream3),
				time: parseFileTime(ts), message: *msg,
			}, true
		}
	}
	return hit{message: line}, true
}

// parseFileTime reads a timestamp given as epoch milliseconds (or seconds,
// when too small to be milliseconds) or as text (RFC 3339, or Insights'
// "2006-01-02 15:04:05.000"); the zero time when it is none of these.
func parseFileTime(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if f, err := strconv.ParseFloat(n.String(), 64); err == nil {
			if f < 1e11 {
				return time.UnixMilli(int64(math.Round(f * 1000))).UTC()
			}
			return time.UnixMilli(int64(f)).UTC()
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.000", "2006-01-02 15:04:05"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

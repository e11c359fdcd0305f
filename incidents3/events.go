package incidents3

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/mfdlq/mfdlq/incident"
)

// maxMergeRounds bounds the merge of events.jsonl: each round is one
// other writer's append landing between this copy's read and write.
const maxMergeRounds = 10

// pushEvents writes events.jsonl: the lines this copy appended since the
// pull (prev) go after whatever S3 holds now. The first attempt assumes S3
// still holds what was pulled (If-Match: its ETag); each lost condition
// reads the object again and appends the same new lines to it. The local
// file becomes what S3 holds, so this copy sees the others' events too.
func (cp *Copy) pushEvents(ctx context.Context, local []byte, prev objectState) (int, error) {
	added := newLines(local, prev)
	if len(added) == 0 {
		return 0, nil
	}
	key := cp.Loc.key(incident.EventsFile)
	base, etag := local[:min(int64(len(local)), prev.Size)], prev.ETag
	// When the pulled lines are not this file's start, the first write
	// goes on top of what S3 holds now, never on top of a guess; after a
	// lost condition, so does every next one.
	reread := etag != "" && sum(base) != prev.SHA256
	for round := 0; round < maxMergeRounds; round++ {
		if reread {
			cur, err := get(ctx, cp.c, cp.Loc.Bucket, key, MaxObjectBytes)
			switch {
			case errors.Is(err, ErrNotFound):
				base, etag = nil, ""
			case err != nil:
				return 0, err
			default:
				base, etag, added = cur.data, cur.etag, missing(added, cur.data)
			}
		}
		body := appendLines(base, added)
		newTag, err := put(ctx, cp.c, cp.Loc.Bucket, key, body, etag, "application/x-ndjson")
		if err == nil {
			if err := cp.WS.WriteFile(incident.EventsFile, body); err != nil {
				return len(added), err
			}
			cp.st.Objects[incident.EventsFile] = objectState{ETag: newTag, SHA256: sum(body), Size: int64(len(body))}
			return len(added), nil
		}
		if !errors.Is(err, errConditionLost) {
			return 0, err
		}
		reread = true
	}
	return 0, fmt.Errorf("%s: %d other writers' appends landed in a row; run the step again to write its events", cp.Loc.String()+"/"+incident.EventsFile, maxMergeRounds)
}

// newLines is the lines of local after what was pulled: the pulled bytes
// are normally its prefix (steps only append); when they are not (the
// local file was rewritten), every line of local is offered and the merge
// drops those S3 already holds.
func newLines(local []byte, prev objectState) [][]byte {
	rest := local
	if prev.Size > 0 && int64(len(local)) >= prev.Size && sum(local[:prev.Size]) == prev.SHA256 {
		rest = local[prev.Size:]
	}
	var out [][]byte
	for _, l := range bytes.Split(rest, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// missing keeps the lines of added that remote does not hold already (a
// retried merge whose earlier write landed, or a rewritten local file).
func missing(added [][]byte, remote []byte) [][]byte {
	have := map[string]bool{}
	for _, l := range bytes.Split(remote, []byte("\n")) {
		have[string(l)] = true
	}
	var out [][]byte
	for _, l := range added {
		if !have[string(l)] {
			out = append(out, l)
		}
	}
	return out
}

// appendLines is base, ended by a newline if it has none, then lines.
func appendLines(base []byte, lines [][]byte) []byte {
	out := append([]byte(nil), base...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}

// Package note keeps a person's note on a DLQ ("investigating: the
// gateway's 503s since 02:04 — ana") where every colleague's mfdlq sees it:
// on the queue itself, as two queue tags. A note is a claim, not a lock: a
// redrive still takes the lease (redrive/lease).
//
// # Tags
//
// TextTag holds the text, encoded reversibly in tag characters
// (tagvalue.Encode): so a note is at most tagvalue.MaxLen characters once
// encoded (MaxText says how that counts). ByTag holds who wrote it and
// when, as the lease writes its holder: "at=RFC3339 by=ARN" words
// (tagvalue.Safe). Writing both in one TagQueue call and clearing both in
// one UntagQueue call keeps them together; two of SQS's advised 50 tags.
//
// # Reading across a fleet
//
// SQS documents its tagging actions, ListQueueTags included, at 5 TPS per
// account (TagQueue's reference). A listing of thousands of queues reads
// notes through a Pacer: one limiter per account, below that limit so a
// running redrive's lease renewals still get through.
package note

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/tagvalue"
)

// The DLQ's tags that hold a note.
const (
	TextTag = "mfdlq-note"
	ByTag   = "mfdlq-note-by"
)

// MaxAuthor bounds the author's ARN in ByTag (a role session ARN is well
// under it); what is longer is cut.
const MaxAuthor = 200

// Tags is the SQS tag calls of a note, with the SDK's signatures.
type Tags interface {
	TagQueue(ctx context.Context, in *sqs.TagQueueInput, optFns ...func(*sqs.Options)) (*sqs.TagQueueOutput, error)
	UntagQueue(ctx context.Context, in *sqs.UntagQueueInput, optFns ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error)
	ListQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput, optFns ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error)
}

var _ Tags = (sqsapi.Client)(nil)

// Note is a note on a DLQ. Every field came from the queue's tags, which
// anyone allowed to tag the queue wrote: untrusted on the way out.
type Note struct {
	Text   string    `json:"text"`
	Author string    `json:"author"`
	At     time.Time `json:"at"`
	// Unreadable is set when the tag holds what mfdlq cannot have written
	// (someone edited it in the console): Text is then the raw value.
	Unreadable bool `json:"unreadable,omitempty"`
}

// Who is the note's author as a person reads it: the last part of the
// author's ARN (the role session or the user), "unknown" for none. It is
// the tag's data: sanitise it before a terminal shows it.
func (n *Note) Who() string {
	if n.Author == "" {
		return "unknown"
	}
	if i := strings.LastIndex(n.Author, "/"); i >= 0 && i < len(n.Author)-1 {
		return n.Author[i+1:]
	}
	return n.Author
}

// UsageError is a note text that cannot be a tag: the message names the
// limit.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// CheckText tells whether text can be a note: not empty, one line, and at
// most tagvalue.MaxLen characters once encoded.
func CheckText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return &UsageError{"the note is empty: give its text, or --clear to remove the note"}
	case strings.IndexFunc(text, unicode.IsControl) >= 0:
		return &UsageError{"the note holds a control character or a line break: a note is one line"}
	}
	if n := tagvalue.EncodedLen(text); n > tagvalue.MaxLen {
		return &UsageError{fmt.Sprintf("the note is %d characters once encoded, more than a queue tag's %d: "+
			"letters, digits, spaces and _ . : / + - @ count 1, any other character 3 per UTF-8 byte (' is 3, — is 9); shorten it",
			n, tagvalue.MaxLen)}
	}
	return nil
}

// TagsOf is the tags that hold n.
func TagsOf(n Note) (map[string]string, error) {
	if err := CheckText(n.Text); err != nil {
		return nil, err
	}
	return map[string]string{
		TextTag: tagvalue.Encode(n.Text),
		ByTag:   "at=" + n.At.UTC().Format(time.RFC3339) + " by=" + tagvalue.Safe(n.Author, MaxAuthor),
	}, nil
}

// FromTags reads the note in a queue's tags; nil when there is none.
func FromTags(tags map[string]string) *Note {
	v, ok := tags[TextTag]
	if !ok {
		return nil
	}
	n := &Note{}
	if text, err := tagvalue.Decode(v); err == nil {
		n.Text = text
	} else {
		n.Text, n.Unreadable = v, true
	}
	for _, w := range strings.Fields(tags[ByTag]) {
		k, val, _ := strings.Cut(w, "=")
		switch k {
		case "at":
			n.At, _ = time.Parse(time.RFC3339, val)
		case "by":
			n.Author = val
		}
	}
	return n
}

// ErrNoTagging is the role not allowed to read or write the queue's tags.
var ErrNoTagging = errors.New("the DLQ's tags cannot be read or written: let this role call sqs:ListQueueTags, sqs:TagQueue and sqs:UntagQueue (docs/iam.md)")

func tagErr(err error) error {
	if err != nil && sqsapi.IsUnsupportedOrDenied(err) {
		return fmt.Errorf("%w (%s)", ErrNoTagging, sqsapi.ErrorCode(err))
	}
	return err
}

// Read reads the note on the queue at url; nil when there is none.
func Read(ctx context.Context, c Tags, url string) (*Note, error) {
	out, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	if err != nil {
		return nil, tagErr(err)
	}
	return FromTags(out.Tags), nil
}

// Write sets n on the queue at url, replacing any note there.
func Write(ctx context.Context, c Tags, url string, n Note) error {
	tags, err := TagsOf(n)
	if err != nil {
		return err
	}
	_, err = c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: tags})
	return tagErr(err)
}

// Clear removes the note on the queue at url (nothing when there is none).
func Clear(ctx context.Context, c Tags, url string) error {
	_, err := c.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: []string{TextTag, ByTag}})
	return tagErr(err)
}

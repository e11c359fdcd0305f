package note

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/tagvalue"
)

func TestMain(m *testing.M) { localaws.Wrap(m).Run() }

// TestNoteLivesOnTheQueue writes a hostile note to a moto queue beside
// another tool's tag, reads it back through a second client (another
// operator), replaces it and clears it: the other tag stays.
func TestNoteLivesOnTheQueue(t *testing.T) {
	cfg := localaws.Config(t)
	ctx := context.Background()
	ana, bo := sqs.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
	u, err := localaws.NewSeeder(cfg).CreateQueue(ctx, localaws.UniqueName("note-dlq"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ana.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(u), Tags: map[string]string{"team": "payments"}}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 2, 4, 0, 0, time.UTC)
	want := Note{Text: "investigating: the gateway's 503s since 02:04 — ana = 100% <b>", Author: "arn:aws:sts::123456789012:assumed-role/oncall/ana", At: at}
	if err := Write(ctx, ana, u, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, bo, u)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || !cmp.Equal(*got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	if err := Write(ctx, bo, u, Note{Text: "mine now — bo", Author: "arn:aws:iam::123456789012:user/bo", At: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := Read(ctx, ana, u); got == nil || got.Text != "mine now — bo" || got.Author != "arn:aws:iam::123456789012:user/bo" {
		t.Fatalf("after bo's note: %+v", got)
	}
	if err := Clear(ctx, ana, u); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(ctx, bo, u); err != nil || got != nil {
		t.Fatalf("after clear: %+v, %v", got, err)
	}
	tags, err := bo.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(u)})
	if err != nil || !cmp.Equal(tags.Tags, map[string]string{"team": "payments"}) {
		t.Fatalf("tags after clear: %v, %v", tags.Tags, err)
	}
}

func TestCheckTextBoundsTheEncodedLength(t *testing.T) {
	if err := CheckText(strings.Repeat("a", tagvalue.MaxLen)); err != nil {
		t.Errorf("256 plain characters: %v", err)
	}
	var ue *UsageError
	for _, text := range []string{"", "  ", strings.Repeat("a", 257), strings.Repeat("—", 29), "two\nlines"} {
		if err := CheckText(text); !errors.As(err, &ue) {
			t.Errorf("CheckText(%q) = %v, want a usage error", text, err)
		}
	}
	if err := CheckText(strings.Repeat("—", 28)); err != nil {
		t.Errorf("28 em dashes (252 encoded): %v", err)
	}
}

func TestFromTagsKeepsWhatItCannotDecode(t *testing.T) {
	n := FromTags(map[string]string{TextTag: "=ZZ set in the console", ByTag: "by=x at=nonsense"})
	if n == nil || !n.Unreadable || n.Text != "=ZZ set in the console" || n.Author != "x" || !n.At.IsZero() {
		t.Fatalf("%+v", n)
	}
	if FromTags(map[string]string{"mfdlq-lease": "run=1"}) != nil {
		t.Fatal("a queue without a note has none")
	}
}

type countingTags struct {
	Tags
	calls atomic.Int64
}

func (c *countingTags) ListQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput, f ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	c.calls.Add(1)
	return &sqs.ListQueueTagsOutput{Tags: map[string]string{TextTag: "x"}}, nil
}

// TestReadAllPacesEachAccount reads 11 notes of one account and 11 of
// another at 20 a second per account: each account's reads take at least
// half a second (the limiter's burst of one, then 20 a second).
func TestReadAllPacesEachAccount(t *testing.T) {
	c := &countingTags{}
	var qs []Queue
	for i := range 22 {
		qs = append(qs, Queue{Account: []string{"111111111111", "222222222222"}[i%2], URL: "u", Client: c})
	}
	start := time.Now()
	notes, _, errs := ReadAllWith(context.Background(), NewPacer(20), qs, "")
	took := time.Since(start)
	if took < 500*time.Millisecond {
		t.Errorf("22 reads over two accounts at 20/s each took %s, less than the 0.5 s the limit allows", took)
	}
	for i := range qs {
		if errs[i] != nil || notes[i] == nil || notes[i].Text != "x" {
			t.Fatalf("note %d: %v %v", i, notes[i], errs[i])
		}
	}
	if c.calls.Load() != 22 {
		t.Errorf("%d calls, want 22", c.calls.Load())
	}
}

// TestWho: a note's author as a person reads it, the role session or the
// user at the end of the ARN.
func TestWho(t *testing.T) {
	for author, want := range map[string]string{
		"arn:aws:sts::123456789012:assumed-role/oncall/ana@example.com": "ana@example.com",
		"arn:aws:iam::123456789012:user/bo":                             "bo",
		"arn:aws:iam::123456789012:root":                                "arn:aws:iam::123456789012:root",
		"":                                                              "unknown",
	} {
		if got := (&Note{Author: author}).Who(); got != want {
			t.Errorf("Who of %q = %q, want %q", author, got, want)
		}
	}
}

package window

import (
	"strconv"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// The move's count: a kept message is seen again by the rest after the
// canary (the largest phase), a moved one once (the sum).
func TestBeyondCount(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	w := &Window{Length: time.Hour}
	old := sqsjson.Message{MessageId: "a", Attributes: map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(now.Add(-2*time.Hour).UnixMilli(), 10)}}
	fresh := sqsjson.Message{MessageId: "b", Attributes: map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(now.Add(-time.Minute).UnixMilli(), 10)}}
	for _, keep := range []bool{true, false} {
		c := &BeyondCount{}
		sel := c.Selector(w, keep, func() time.Time { return now }, nil)
		if ok, _ := sel(&old); ok == keep {
			t.Fatalf("keep=%v: old message selected %v", keep, ok)
		}
		if ok, _ := sel(&fresh); !ok {
			t.Fatal("fresh message not selected")
		}
		c.End()
		_, _ = sel(&old)
		want := map[bool]int{true: 1, false: 2}[keep]
		if got := c.Total(keep); got != want {
			t.Errorf("keep=%v: total %d, want %d", keep, got, want)
		}
	}
}

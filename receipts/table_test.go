package receipts

import (
	"fmt"
	"runtime"
	"testing"
)

// A message goes seen → held → parked | deleting → done; a second receive
// while held keeps only the latest handle, which is what SQS acts on.
func TestTableStates(t *testing.T) {
	tb := NewTable(0)
	if tb.State("a") != Unseen || !tb.See("a") || tb.See("a") || tb.SeenCount() != 1 {
		t.Fatal("see: want a new once, counted once")
	}
	if tb.Hold("a", "h1") || !tb.Hold("a", "h2") || tb.Handle("a") != "h2" || tb.Held() != 1 {
		t.Fatalf("hold twice: handle %q, held %d; want h2 and 1", tb.Handle("a"), tb.Held())
	}
	tb.Park("a", "h3")
	if tb.State("a") != Parked || tb.Held() != 0 || tb.Parked() != 1 {
		t.Fatalf("park: state %d, held %d, parked %d", tb.State("a"), tb.Held(), tb.Parked())
	}
	tb.LetGo("a") // a worker's unhold does not take a parked message back
	if got := tb.TakeParked(); len(got) != 1 || got[0] != (Message{"a", "h3"}) || tb.Parked() != 0 || tb.State("a") != Seen {
		t.Fatalf("take parked: %v, parked %d, state %d", got, tb.Parked(), tb.State("a"))
	}
	tb.Hold("b", "hb")
	epoch := tb.StartDelete([]string{"b"})
	if tb.State("b") != Deleting || tb.Deleting() != 1 || tb.Held() != 1 || tb.Epoch() != epoch {
		t.Fatalf("delete: state %d, deleting %d, held %d", tb.State("b"), tb.Deleting(), tb.Held())
	}
	tb.Finish("b")
	tb.LetGo("b")
	if tb.State("b") != Done || tb.Held() != 0 || tb.Deleting() != 0 || tb.Handle("b") != "" {
		t.Fatalf("done: state %d, held %d, deleting %d", tb.State("b"), tb.Held(), tb.Deleting())
	}
}

// An owed message stays owed while it is held again and let go of, until
// it is paid or its deletes failed too often.
func TestTableOwed(t *testing.T) {
	tb := NewTable(0)
	tb.Hold("a", "h1")
	tb.LetGo("a")
	if !tb.Owe("a", true, 3) || tb.Owed() != 1 {
		t.Fatal("owe: want owed")
	}
	tb.Hold("a", "h2")
	tb.LetGo("a")
	if !tb.Owe("a", true, 3) || tb.Owed() != 1 {
		t.Fatal("owed twice: still one owed")
	}
	if tb.Owe("a", true, 3) || tb.Owed() != 0 {
		t.Fatal("third failed delete: want it no longer waited for")
	}
	tb.Owe("b", false, 3)
	if owed, fails := tb.Pay("b"); !owed || fails != 0 || tb.Owed() != 0 {
		t.Fatalf("pay: owed %v fails %d", owed, fails)
	}
	if owed, _ := tb.Pay("b"); owed {
		t.Fatal("paid twice")
	}
	if len(tb.live) != 0 {
		t.Fatalf("%d entries kept for messages neither held, parked nor owed", len(tb.live))
	}
}

// HeldMessages lists in first-receive order, and taken ones alone when
// asked (what a checkpoint deletes).
func TestTableHeldInReceiveOrder(t *testing.T) {
	tb := NewTable(0)
	for i := range 5 {
		tb.Hold(fmt.Sprint(i), fmt.Sprint("h", i))
	}
	tb.Hold("2", "h2b")
	tb.Take("1")
	tb.Take("3")
	all, taken := tb.HeldMessages(false), tb.HeldMessages(true)
	if fmt.Sprint(all) != "[{0 h0} {1 h1} {2 h2b} {3 h3} {4 h4}]" || fmt.Sprint(taken) != "[{1 h1} {3 h3}]" {
		t.Fatalf("held %v, taken %v", all, taken)
	}
}

// A million messages seen and done cost a digest each: well within the
// 128 MiB a million-message move may use.
func TestTableMillionWithinBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a million ids")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tb := NewTable(1_000_000)
	for i := range 1_000_000 {
		id := fmt.Sprintf("%08x-1111-2222-3333-444455556666", i)
		tb.See(id)
		tb.Finish(id)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if tb.SeenCount() != 1_000_000 {
		t.Fatalf("seen %d", tb.SeenCount())
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 24<<20 {
		t.Fatalf("a million ids took %d MiB of heap, want ≤ 24", grew>>20)
	}
	runtime.KeepAlive(tb)
}

// The digests keep their two flags apart, count each once, and grow
// without losing an id (the mover's runSet test, moved with it).
func TestDigestFlags(t *testing.T) {
	tb := NewTable(4)
	const n = 50000
	for i := range n {
		id := "m-" + fmt.Sprint(i)
		if !tb.See(id) || tb.See(id) {
			t.Fatalf("See(%s) twice did not say new, then old", id)
		}
		if i%3 == 0 && !tb.Finish(id) {
			t.Fatalf("Finish(%s) not new", id)
		}
	}
	if tb.SeenCount() != n {
		t.Fatalf("SeenCount() = %d, want %d", tb.SeenCount(), n)
	}
	for i := range n {
		id := "m-" + fmt.Sprint(i)
		if !tb.IsSeen(id) || tb.IsDone(id) != (i%3 == 0) {
			t.Fatalf("%s: seen %v done %v after growing to %d slots", id, tb.IsSeen(id), tb.IsDone(id), len(tb.digests.slots))
		}
	}
	if tb.IsSeen("m-x") || tb.IsDone("m-x") {
		t.Fatal("an id never added is in the table")
	}
	if len(tb.digests.slots)*8 > 22*n {
		t.Errorf("%d slots for %d ids: more than 22 bytes an id (three quarters full at most, a power of two)", len(tb.digests.slots), n)
	}
}

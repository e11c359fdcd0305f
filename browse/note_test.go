package browse

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/note"
)

// fleetFake lists the fixture's DLQs across accounts, with a hostile note
// on one and an account that could not be read.
type fleetFake struct{ fake }

func (f *fleetFake) Fleet(ctx context.Context) (*Fleet, error) {
	fl, err := f.fake.Fleet(ctx)
	if err != nil {
		return nil, err
	}
	fl.DLQs[0].ARN = "arn:aws:sqs:eu-west-1:123456789012:orders-dlq"
	fl.Accounts = true
	fl.Notes = map[string]*note.Note{fl.DLQs[0].ARN: {Text: "investigating \x1b[2J\u202egnp — ana", Author: "arn:aws:sts::123456789012:assumed-role/oncall/ana",
		At: time.Date(2026, 12, 1, 2, 4, 0, 0, time.UTC)}}
	fl.Redrives = map[string]string{fl.DLQs[0].ARN: "b\x1b[2Jo on laptop-2 (pid 42, run r-1), waiting on alarms gateway-5xx+1"}
	fl.Unreadable = []fleet.Unreadable{{Account: "222222222222", Code: "AccessDenied", Reason: "assume …"}}
	return fl, nil
}

// TestFleetShowsNotesAndAccounts: the fleet names each DLQ's account,
// shows the note under its DLQ with its author and time, sanitised, and
// the running redrive (its lease: who, the alarms a --when-ok run waits
// on), and the account it could not read.
func TestFleetShowsNotesAndAccounts(t *testing.T) {
	m := newModel(t, &fleetFake{}, Options{}, 120, 30)
	frame := m.View()
	checkFrame(t, frame, 120, 30)
	for _, want := range []string{
		"123456789012 orders-dlq",
		`note: investigating \x1b[2J\u202egnp — ana (ana, 2026-12-01 02:04 UTC)`,
		"not read: account 222222222222: AccessDenied",
		`redrive running: b\x1b[2Jo on laptop-2 (pid 42, run r-1), waiting on alarms gateway-5xx+1`,
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("the fleet lacks %q:\n%s", want, frame)
		}
	}
}

// TestFleetOpensTheDLQOfItsAccount: across accounts, enter opens the DLQ
// by its ARN, never by a name that means the caller's own account.
func TestFleetOpensTheDLQOfItsAccount(t *testing.T) {
	be := &fleetFake{}
	m := newModel(t, be, Options{}, 120, 30)
	press(t, m, "enter")
	if m.dlq.queue != "arn:aws:sqs:eu-west-1:123456789012:orders-dlq" {
		t.Errorf("opened %q, want the DLQ's ARN", m.dlq.queue)
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	found := false
	for _, c := range be.calls {
		found = found || c == "contain arn:aws:sqs:eu-west-1:123456789012:orders-dlq"
	}
	if !found {
		t.Errorf("calls %v: no contain of the ARN", be.calls)
	}
}

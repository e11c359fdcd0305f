package redact

import "testing"

// A MessageId whose last group is all digits ("…-003999061822" reads as an
// international number after "00"; "8789-003999061822" is 16 digits that
// can pass Luhn) stays whole in a report: the ticket's reader searches
// the logs by it. A phone beside it is still redacted.
func TestUUIDsAreNotPhonesOrCards(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"cee8935d-f80c-42d6-8789-003999061822", "12345678-1234-1234-4539-578763621486"} {
		r := &Redactor{}
		in := "message " + id + " from +44 7946 095812"
		got := r.String(in)
		want := "message " + id + " from [redacted:phone]"
		if got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
	r := &Redactor{}
	if got := r.String(`token=cee8935d-f80c-42d6-8789-003999061822`); got != "token=[redacted:secret]" {
		t.Errorf("a UUID that is a secret's value: %q", got)
	}
}

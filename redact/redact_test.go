package redact

import (
	"strings"
	"testing"
)

func TestStringRedacts(t *testing.T) {
	tests := []struct {
		name, in, secret, kind string
	}{
		{"email", `{"email":"ana.123@example.com"}`, "ana.123@example.com", Email},
		{"email subdomain plus", "to: bruno+dlq@mail.shop.example.co.uk ok", "bruno+dlq@mail.shop.example.co.uk", Email},
		{"phone international spaces", `call +34 612 345 678 now`, "612 345 678", Phone},
		{"phone international dashes", "tel +1-415-555-0134.", "415-555-0134", Phone},
		{"phone us parens", "(415) 555-0134", "555-0134", Phone},
		{"phone us dashes", "cb 415-555-0134", "415-555-0134", Phone},
		{"phone json key no separators", `{"phone":"600123456"}`, "600123456", Phone},
		{"card plain visa", `"card":"4111111111111111"`, "4111111111111111", Card},
		{"card spaces", "pan 4242 4242 4242 4242 exp", "4242 4242 4242 4242", Card},
		{"card dashes", "5555-5555-5555-4444", "5555-5555-5555-4444", Card},
		{"card amex 15", "378282246310005", "378282246310005", Card},
		{"iban compact", "iban=ES9121000418450200051332;", "ES9121000418450200051332", IBAN},
		{"iban spaced", "GB82 WEST 1234 5698 7654 32", "WEST 1234 5698", IBAN},
		{"bearer", "Authorization: Bearer abcDEF123456789.xyz", "abcDEF123456789", Token},
		{"jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", JWT},
		{"aws access key", "key AKIAIOSFODNN7EXAMPLE used", "AKIAIOSFODNN7EXAMPLE", AccessKey},
		{"aws session key id", "ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A", AccessKey},
		{"aws secret bare", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", Secret},
		{"password kv", `{"password":"hunter2!x"}`, "hunter2!x", Secret},
		{"api key kv", "api_key=sk_live_51Habc", "sk_live_51Habc", Secret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Redactor
			got := r.String(tt.in)
			if strings.Contains(got, tt.secret) {
				t.Fatalf("String(%q) = %q: still holds %q", tt.in, got, tt.secret)
			}
			if !strings.Contains(got, Placeholder(tt.kind)) {
				t.Fatalf("String(%q) = %q: want placeholder %s", tt.in, got, Placeholder(tt.kind))
			}
			if r.Counts[tt.kind] == 0 {
				t.Fatalf("Counts = %v: want %s counted", r.Counts, tt.kind)
			}
		})
	}
}

func TestStringKeeps(t *testing.T) {
	tests := []struct{ name, in string }{
		{"16-digit order number failing luhn", `{"order_id":"4111111111111112"}`},
		{"epoch millis luhn-valid", `"ts":1764454000001`},
		{"rfc3339", "2026-11-29T22:04:13.123Z ERROR orders: failed"},
		{"date only", "on 2026-11-29 at 22:04"},
		{"uuid message id", "MessageId 5e2c3b1a-8f0d-4c1e-9a77-0b6f2d3e4a51"},
		{"order and sku", `{"order_id":"ord-104200","sku":"SKU-4821","qty":2}`},
		{"amounts", `{"total":12345.67,"currency":"EUR"}`},
		{"ip address", "from 10.0.12.255:443"},
		{"sha256 hex", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{"sha1 hex", "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"},
		{"version", `{"version":2,"schema_version":"2.1.0"}`},
		{"short number after plus", "retries +3 then 42"},
		{"arn", "arn:aws:sqs:us-east-1:123456789012:orders-dlq"},
		{"akia too short", "AKIA1234"},
		{"iban-like bad checksum", "ES9121000418450200051333"},
		{"word bearer alone", "the bearer of bad news"},
		{"exception", "UnsupportedVersionError: unsupported version 2 at OrderHandler.java:88"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Redactor
			if got := r.String(tt.in); got != tt.in {
				t.Fatalf("String(%q) = %q, want it unchanged", tt.in, got)
			}
			if r.Counts.Total() != 0 {
				t.Fatalf("Counts = %v, want none", r.Counts)
			}
		})
	}
}

func TestCountsAcrossCalls(t *testing.T) {
	var r Redactor
	r.String(`{"email":"a@example.com","phone":"+34 612 345 678"}`)
	r.String(`{"email":"b@example.com","card":"4111 1111 1111 1111"}`)
	if r.Counts[Email] != 2 || r.Counts[Phone] != 1 || r.Counts[Card] != 1 {
		t.Fatalf("Counts = %v, want 2 email, 1 phone, 1 card", r.Counts)
	}
	if got := strings.Join(r.Counts.Kinds(), ","); got != "card,email,phone" {
		t.Fatalf("Kinds = %s", got)
	}
	if r.Counts.Total() != 4 {
		t.Fatalf("Total = %d, want 4", r.Counts.Total())
	}
}

func TestLuhn(t *testing.T) {
	for d, want := range map[string]bool{
		"4111111111111111": true, "4111111111111112": false, "79927398713": true, "0": true, "1": false,
	} {
		if got := luhn(d); got != want {
			t.Errorf("luhn(%s) = %v, want %v", d, got, want)
		}
	}
}

func BenchmarkString(b *testing.B) {
	body := `{"version":2,"order_id":"ord-104200","customer":{"email":"ana.123@example.com","phone":"+34 612 345 678"},"items":[{"sku":"SKU-4821","qty":2}],"total":123.45,"currency":"EUR"}`
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var r Redactor
		r.String(body)
	}
}

package redact

import (
	"encoding/json"
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
		{"phone 00 prefix spaced", "ring 0034 612 345 678 today", "612 345 678", Phone},
		{"phone us parens", "(415) 555-0134", "555-0134", Phone},
		{"phone us dashes", "cb 415-555-0134", "415-555-0134", Phone},
		{"phone us spaced", "cb 415 555 0134 asap", "415 555 0134", Phone},
		{"phone french spaced", "appeler 06 12 34 56 78", "06 12 34 56 78", Phone},
		{"phone uk spaced", "office 020 7946 0958", "020 7946 0958", Phone},
		{"phone json key no separators", `{"phone":"600123456"}`, "600123456", Phone},
		{"phone json key spaced", `{"mobile_number":"612 34 56 78"}`, "612 34 56 78", Phone},
		{"card plain visa", `"card":"4111111111111111"`, "4111111111111111", Card},
		{"card spaces", "pan 4242 4242 4242 4242 exp", "4242 4242 4242 4242", Card},
		{"card dashes", "5555-5555-5555-4444", "5555-5555-5555-4444", Card},
		{"card amex 15", "378282246310005", "378282246310005", Card},
		{"card then cvv digits", "pan 4111 1111 1111 1111 123", "4111 1111 1111 1111", Card},
		{"card then amount", "4111111111111111 25 EUR", "4111111111111111", Card},
		{"card after a number", "qty 2 4111111111111111", "4111111111111111", Card},
		{"two cards in a row", "4111 1111 1111 1111 5555 5555 5555 4444", "5555 5555 5555 4444", Card},
		{"mastercard 2-series", "card 2223003122003222 ok", "2223003122003222", Card},
		{"iban compact", "iban=ES9121000418450200051332;", "ES9121000418450200051332", IBAN},
		{"iban spaced", "GB82 WEST 1234 5698 7654 32", "WEST 1234 5698", IBAN},
		{"iban then word", "ES9121000418450200051332 SEPA", "ES9121000418450200051332", IBAN},
		{"iban spaced then word", "to ES91 2100 0418 4502 0005 1332 SEPA transfer", "2100 0418 4502", IBAN},
		{"iban lower case", "iban es9121000418450200051332", "es9121000418450200051332", IBAN},
		{"iban german spaced lower", "de89 3704 0044 0532 0130 00 paid", "3704 0044 0532", IBAN},
		{"bearer", "Authorization: Bearer abcDEF123456789.xyz", "abcDEF123456789", Token},
		{"bearer bare", "sent Bearer abcDEF123456789.xyz upstream", "abcDEF123456789", Token},
		{"basic bare", "header Basic dXNlcjpodW50ZXIy seen", "dXNlcjpodW50ZXIy", Token},
		{"basic header", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", Token},
		{"jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", JWT},
		{"aws access key", "key AKIAIOSFODNN7EXAMPLE used", "AKIAIOSFODNN7EXAMPLE", AccessKey},
		{"aws session key id", "ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A", AccessKey},
		{"aws secret bare", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", Secret},
		{"password json", `{"password":"hunter2!x"}`, "hunter2!x", Secret},
		{"password json with spaces", `{"password": "correct horse battery staple"}`, "horse battery", Secret},
		{"password json short", `{"pwd":"x1"}`, "x1", Secret},
		{"password json escaped quote", `{"password":"a\"b c"}`, `b c`, Secret},
		{"password json number", `{"pin": 4821}`, "4821", Secret},
		{"db_password json", `{"db_password":"s3cr3t value"}`, "s3cr3t value", Secret},
		{"access_token json", `{"access_token":"ya29.a0AfH6SMB"}`, "ya29.a0AfH6SMB", Secret},
		{"camel case key", `{"clientSecret":"abc def"}`, "abc def", Secret},
		{"cookie json", `{"Cookie":"sid=abc123; theme=dark"}`, "sid=abc123", Secret},
		{"envelope escaped json", `{"Message":"{\"password\":\"hunter 2\"}"}`, "hunter 2", Secret},
		{"api key kv", "api_key=sk_live_51Habc", "sk_live_51Habc", Secret},
		{"apikey kv", "apikey=abc", "abc", Secret},
		{"token kv", "GET /hook?token=abc123def&x=1", "abc123def", Secret},
		{"token kv short", "token=x", "token=x", Secret},
		{"session cookie kv", "session_id=7f3e9a", "7f3e9a", Secret},
		{"secret colon text", "client secret: correct horse battery staple", "horse battery staple", Secret},
		{"password yaml", "password: hunter2 again", "hunter2 again", Secret},
		{"password quoted kv", `password="two words"`, "two words", Secret},
		{"password single quoted", `PASSWORD='two words'`, "two words", Secret},
		{"credential xml", "<credentials>u:p</credentials>", "u:p", Secret},
		{"cvv in log line", "charge failed card=4111111111111111 cvv=123 exp=12/27", "cvv=123", Secret},
		{"cvv json", `{"cvv":"123","order_id":"ord-1"}`, `"123"`, Secret},
		{"card in log line", "charge failed card=4111111111111111 cvv=123", "4111111111111111", Card},
		{"url password", "postgres://app:hunter2@db.internal:5432/orders", "hunter2", Secret},
		{"url password ip host", "amqp://guest:guest@10.0.0.7:5672/", "guest:guest", Secret},
		{"url token user", "https://ghp_abcdef123456@github.com/x", "ghp_abcdef123456", Secret},
		{"pem block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA7", PrivateKey},
		{"pem block in json", `{"key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----"}`, "MIIEvQIBADANBg", PrivateKey},
		{"pem truncated", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg", "MHcCAQEEIBkg", PrivateKey},
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

func TestStringExact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"pan 4111 1111 1111 1111 123", "pan [redacted:card] 123"},
		{"4111111111111111 25 EUR", "[redacted:card] 25 EUR"},
		{"ES9121000418450200051332 SEPA", "[redacted:iban] SEPA"},
		{`"password": "correct horse battery staple"`, `"password": "[redacted:secret]"`},
		{`{"password":"x","order_id":"ord-1"}`, `{"password":"[redacted:secret]","order_id":"ord-1"}`},
		{"token=abc&page=2", "token=[redacted:secret]&page=2"},
		{"postgres://app:pw@10.0.0.7/db", "postgres://[redacted:secret]@10.0.0.7/db"},
		{"InvalidTokenError: token expired", "InvalidTokenError: token expired"},
		{"card=4111111111111111 cvv=123 amount=25.00", "card=[redacted:card] cvv=[redacted:secret] amount=25.00"},
	}
	for _, tt := range tests {
		var r Redactor
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStringKeeps(t *testing.T) {
	tests := []struct{ name, in string }{
		{"16-digit order number failing luhn", `{"order_id":"4111111111111112"}`},
		{"epoch millis luhn-valid", `"ts":1764454000001`},
		{"epoch seconds", `"ts":1764454000`},
		{"compact timestamp luhn-valid", "at 20261129220418 done"},
		{"rfc3339", "2026-11-29T22:04:13.123Z ERROR orders: failed"},
		{"date only", "on 2026-11-29 at 22:04"},
		{"date spaced", "2026 11 29 22 04 13"},
		{"uuid message id", "MessageId 5e2c3b1a-8f0d-4c1e-9a77-0b6f2d3e4a51"},
		{"message id json", `{"MessageId":"0b6f2d3e-4a51-4c1e-9a77-5e2c3b1a8f0d"}`},
		{"receipt handle prefix", "AQEBzbVv8d3cX0Q"},
		{"order and sku", `{"order_id":"ord-104200","sku":"SKU-4821","qty":2}`},
		{"sku upper with digits", "SKU ES12-AB34-CD56 out of stock"},
		{"order number long luhn-valid", "order 100000000000000008 shipped"},
		{"twenty digit trace id luhn-valid", "trace 12345678901234567894"},
		{"amounts", `{"total":12345.67,"currency":"EUR"}`},
		{"amount with thousands", "total 1 234 567,89 EUR"},
		{"amount us", "charged $1,234.56"},
		{"ip address", "from 10.0.12.255:443"},
		{"ipv6", "from 2001:db8::ff00:42:8329"},
		{"sha256 hex", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{"sha1 hex", "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"},
		{"version", `{"version":2,"schema_version":"2.1.0"}`},
		{"short number after plus", "retries +3 then 42"},
		{"arn", "arn:aws:sqs:us-east-1:123456789012:orders-dlq"},
		{"account id", "account 123456789012"},
		{"queue url", "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq"},
		{"url without userinfo", "see https://example.com/path?a=1&b=2"},
		{"akia too short", "AKIA1234"},
		{"iban-like bad checksum", "ES9121000418450200051333"},
		{"iban-like sku", "GB12ABCD12345678901234"},
		{"word bearer alone", "the bearer of bad news"},
		{"basic word", "basic validation failed for field total"},
		{"exception", "UnsupportedVersionError: unsupported version 2 at OrderHandler.java:88"},
		{"token error name", "InvalidTokenError: token expired"},
		{"token count key", "tokens used 1200"},
		{"shipping key", `{"shipping":"express","pinned":true}`},
		{"key word without value", "password reset requested for order ord-1"},
		{"lambda request id", "RequestId: 8f5b1a2c-3d4e-4f60-9a7b-0c1d2e3f4a5b Duration: 12.34 ms"},
		{"duration and memory", "Billed Duration: 13 ms Memory Size: 128 MB Max Memory Used: 71 MB"},
		{"java stack frame", "at com.shop.orders.Handler.handle(Handler.java:142)"},
		{"http status line", "HTTP/1.1 503 Service Unavailable"},
		{"postal code and street", "28013 Madrid, Calle Mayor 5"},
		{"semver", "v1.12.3-rc.1+build.20261129"},
		{"port list", "ports 8080 8443 9090"},
		{"ten digit id luhn-valid", "customer 4123456784"},
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

// FuzzCardAndIBANInContext checks that whatever surrounds them, a card
// number and an IBAN never come out whole.
func FuzzCardAndIBANInContext(f *testing.F) {
	f.Add("pan", "123")
	f.Add("", "25 EUR")
	f.Add("12", "SEPA")
	f.Fuzz(func(t *testing.T, before, after string) {
		for _, secret := range []string{"4111 1111 1111 1111", "4111111111111111", "ES9121000418450200051332", "es91 2100 0418 4502 0005 1332"} {
			var r Redactor
			in := before + " " + secret + " " + after
			if got := r.String(in); strings.Contains(got, secret) {
				t.Fatalf("String(%q) = %q keeps %q", in, got, secret)
			}
		}
	})
}

// TestNestedJSON holds the key rules at every level of JSON held in JSON
// strings: an SNS notification's Message, a Lambda event's Sns.Message, an
// EventBridge detail sent as a string, a Step Functions Cause.
func TestNestedJSON(t *testing.T) {
	level := func(doc string) string { // doc as a JSON string literal
		b, _ := json.Marshal(doc)
		return string(b)
	}
	inner := `{"phone_number":"+44 20 7946 0958","mobile":"612345678","password":"hunter two"}`
	two := `{"Type":"Notification","Message":` + level(inner) + `}`
	tests := []struct{ name, in string }{
		{"top level", inner},
		{"sns message", `{"Type":"Notification","Message":` + level(inner) + `}`},
		{"lambda event sns message", `{"Records":[{"EventSource":"aws:sns","Sns":{"Message":` + level(inner) + `}}]}`},
		{"eventbridge detail string", `{"detail-type":"x","detail":` + level(inner) + `}`},
		{"step functions cause", `{"Error":"States.TaskFailed","Cause":` + level(`{"errorMessage":"bad","input":`+level(inner)+`}`) + `}`},
		{"lambda body", `{"requestContext":{},"body":` + level(inner) + `}`},
		{"two levels", `{"Message":` + level(two) + `}`},
		{"five levels", `{"a":` + level(`{"b":`+level(`{"c":`+level(`{"d":`+level(two)+`}`)+`}`)+`}`) + `}`},
		{"after prose", `consumer said: payload "` + strings.Trim(level(inner), `"`) + `" rejected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Redactor
			got := r.String(tt.in)
			for _, secret := range []string{"7946", "612345678", "hunter"} {
				if strings.Contains(got, secret) {
					t.Errorf("%q survives in %s", secret, got)
				}
			}
			if r.Counts[Phone] != 2 || r.Counts[Secret] != 1 {
				t.Errorf("counts %v, want 2 phone and 1 secret", r.Counts)
			}
		})
	}
}

// TestNestedJSONBounded leaves what is past the depth bound to the text
// rules and keeps a string that is no JSON as it was.
func TestNestedJSONBounded(t *testing.T) {
	var r Redactor
	in := `{"note":"she said \"hello\" twice","n":1}`
	if got := r.String(in); got != in {
		t.Errorf("changed a string without secrets: %s", got)
	}
	deep := `{"mobile":"612345678"}`
	for i := 0; i < maxNestDepth+3; i++ {
		b, _ := json.Marshal(deep)
		deep = `{"x":` + string(b) + `}`
	}
	_ = r.String(deep) // must end; what is beyond the bound is not promised
}

// TestCarry: a Redactor with Carry replaces a value it redacted once
// wherever it shows again, under any key or none, escaped or not; a short
// value only where it stands alone; without Carry nothing is remembered.
func TestCarry(t *testing.T) {
	r := Redactor{Carry: true}
	if got := r.String(`{"password": "s3cr\"et-99", "pin": "4417"}`); strings.Contains(got, "s3cr") || strings.Contains(got, "4417") {
		t.Fatalf("first document: %s", got)
	}
	for in, want := range map[string]string{
		`{"note": "s3cr\"et-99"}`:            `{"note": "[redacted:secret]"}`,
		`s3cr"et-99 in clear`:                `[redacted:secret] in clear`,
		`{"m": "{\"n\":\"s3cr\\\"et-99\"}"}`: `{"m": "{\"n\":\"[redacted:secret]\"}"}`,
		`code 4417, order 944170, id x4417`:  `code [redacted:secret], order 944170, id x4417`,
		`nothing here`:                       `nothing here`,
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%s) = %s, want %s", in, got, want)
		}
	}
	var plain Redactor
	plain.String(`{"password": "s3cr-et-99"}`)
	if got := plain.String(`{"note": "s3cr-et-99"}`); got != `{"note": "s3cr-et-99"}` {
		t.Errorf("without Carry: %s", got)
	}
}

// TestSecretKeyHoldingADocument: a key that names a secret redacts its
// value whatever JSON type the value has. A body decoded into an object (a
// program's fromjson, a pretty-printed payload) puts an object or an array
// where the string was, and the string rule no longer matched: every
// scalar under the key is redacted, the structure and the inner keys stay.
func TestSecretKeyHoldingADocument(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"password":["Hunter2-Zebra","x"]}`, `{"password":["[redacted:secret]","[redacted:secret]"]}`},
		{`{"credentials":{"user":"u-1","pass":"Hunter2-Zebra","n":12345}}`, `{"credentials":{"user":"[redacted:secret]","pass":"[redacted:secret]","n":[redacted:secret]}}`},
		{"{\n  \"session\": {\n    \"id\": \"Sx-99-Aa\",\n    \"nested\": [{\"k\": \"v\\\"]}\"}]\n  },\n  \"order_id\": \"ord-1\"\n}",
			"{\n  \"session\": {\n    \"id\": \"[redacted:secret]\",\n    \"nested\": [{\"k\": \"[redacted:secret]\"}]\n  },\n  \"order_id\": \"ord-1\"\n}"},
		{`{"api_key":{"ok":true,"v":null,"e":""},"after":"ord-1"}`, `{"api_key":{"ok":true,"v":null,"e":""},"after":"ord-1"}`},
		// Cut short (a shortened report cell): everything to the end.
		{`{"token":{"a":"Hunter2-Zebra","b":"Quo`, `{"token":{"a":"[redacted:secret]","b":"[redacted:secret]`},
		// Inside a string holding JSON.
		{`{"m":"{\"secret\":[\"Hunter2-Zebra\"]}"}`, `{"m":"{\"secret\":[\"[redacted:secret]\"]}"}`},
	}
	for _, tt := range tests {
		var r Redactor
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
	r := Redactor{Carry: true}
	r.String(`{"password":{"v":"Hunter2-Zebra"}}`)
	if got := r.String(`{"note":"Hunter2-Zebra"}`); got != `{"note":"[redacted:secret]"}` {
		t.Errorf("a leaf under a secret key is learnt: %s", got)
	}
}

// TestCarryEncodedAndSplit: a program may move a secret it was given in
// forms the exact value does not match — percent-encoded (@uri), HTML
// escaped (@html), reversed, or split across two fields. Each is redacted
// on the after side: the encodings as whole values, the pieces of a split
// (six bytes or more, inside a learnt secret of ten or more) wherever they
// stand alone; a JSON key that is such a piece stays, and so do the
// placeholders' own words.
func TestCarryEncodedAndSplit(t *testing.T) {
	r := Redactor{Carry: true}
	if got := r.String(`{"password":"p@ss w0rd/Zebra&<Q>!","secret":"Hunter2-Zebra-Quokka9"}`); strings.Contains(got, "Zebra") {
		t.Fatalf("first document: %s", got)
	}
	for in, want := range map[string]string{
		`{"note":"p%40ss%20w0rd%2FZebra%26%3CQ%3E%21"}`:           `{"note":"[redacted:secret]"}`,
		`{"note":"p%40ss+w0rd%2FZebra%26%3CQ%3E%21"}`:             `{"note":"[redacted:secret]"}`,
		`{"note":"p@ss w0rd/Zebra&amp;&lt;Q&gt;!"}`:               `{"note":"[redacted:secret]"}`,
		`{"note":"9akkouQ-arbeZ-2retnuH"}`:                        `{"note":"[redacted:secret]"}`,
		`{"a":"Hunter2-Ze","b":"bra-Quokka9"}`:                    `{"a":"[redacted:secret]","b":"[redacted:secret]"}`,
		`{"a":"hunter2 zebra quokka9"}`:                           `{"a":"[redacted:secret] zebra [redacted:secret]"}`,
		`{"hunter2":"[redacted:secret]","order_id":"ord-Hunter"}`: `{"hunter2":"[redacted:secret]","order_id":"ord-Hunter"}`,
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%s)\n = %s\nwant %s", in, got, want)
		}
	}
}

package signature

import (
	"strings"
	"testing"
)

func TestSignature(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sku", "SkuNotFound: SKU-9123", "SkuNotFound: SKU-<n>"},
		{"other sku", "SkuNotFound: SKU-9555", "SkuNotFound: SKU-<n>"},
		{"version", "UnsupportedVersionError: version 2", "UnsupportedVersionError: version <n>"},
		{"order id", "OrderLocked: order ord-000123 is locked", "OrderLocked: order ord-<n> is locked"},
		{"uuid", "NotFound: customer 3f2b8c1e-9d4a-4e8b-a1c2-0123456789ab", "NotFound: customer <uuid>"},
		{"hex", "conflict on etag 7f3a9c2e1b4d", "conflict on etag <hex>"},
		{"0x", "segfault at 0x1f", "segfault at <hex>"},
		{"mixed id", "no such cart crt9a8b777", "no such cart <id>"},
		{"names with digits stay", "Base64DecodeError in S3Exception for v2", "Base64DecodeError in S3Exception for v2"},
		{"decimal", "amount 12.50 exceeds limit 10", "amount <n> exceeds limit <n>"},
		{"timestamp", "expired at 2024-03-10T22:04:00Z", "expired at <time>"},
		{"time", "timeout after 30s at 12:04:59", "timeout after 30s at <time>"},
		{"email", "InvalidAddress: alice.smith@example.com", "InvalidAddress: <email>"},
		{"whitespace", "  Gateway\tTimeout:   upstream  504 \n", "Gateway Timeout: upstream <n>"},
		{"java first line", "java.lang.IllegalStateException: order 42 closed\n\tat com.shop.Orders.pay(Orders.java:118)", "java.lang.IllegalStateException: order <n> closed"},
		{"python traceback", "Traceback (most recent call last):\n  File \"handler.py\", line 12, in handle\n    raise KeyError(sku)\nKeyError: 'SKU-77'\n", "KeyError: 'SKU-<n>'"},
		{"lambda document", `{"errorType":"PaymentGatewayTimeout","errorMessage":"gateway did not answer in 3000 ms","trace":[]}`, "PaymentGatewayTimeout: gateway did not answer in <n> ms"},
		{"json error", "json: unexpected end of JSON input at offset 312", "json: unexpected end of JSON input at offset <n>"},
		{"empty", "", ""},
		{"url", "GET https://pay.example.com:8443/v1/charges failed", "GET https://pay.example.com:<n>/v1/charges failed"},
		// Codes are not noise: a status or an SQLSTATE in a code's position stays.
		{"http status", "UpstreamError: inventory returned HTTP 503 for SKU-9123", "UpstreamError: inventory returned HTTP 503 for SKU-<n>"},
		{"another class", "UpstreamError: inventory returned HTTP 422 for SKU-9555", "UpstreamError: inventory returned HTTP 422 for SKU-<n>"},
		{"status code", "operation error DynamoDB: PutItem, https response error StatusCode: 400, RequestID: 7QJ2", "operation error DynamoDB: PutItem, https response error StatusCode: 400, RequestID: 7QJ2"},
		{"reason phrase", "requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: /v1/items/77312", "requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: /v1/items/<n>"},
		{"http version", "got HTTP/1.1 409 Conflict after 1200 ms", "got HTTP/<n>.<n> 409 Conflict after <n> ms"},
		{"sqlstate", `FEHLER: Spalte »total« hat Typ integer, aber der Ausdruck hat Typ text (SQLSTATE 42804) bei Zeile 31`, `FEHLER: Spalte »total« hat Typ integer, aber der Ausdruck hat Typ text (SQLSTATE 42804) bei Zeile <n>`},
		{"sqlstate with letters", "ERROR: relation \"orders_v2\" does not exist (SQLSTATE 42P01)", "ERROR: relation \"orders_v2\" does not exist (SQLSTATE 42P01)"},
		{".NET status", "HttpRequestException: Response status code does not indicate success: 429 (Too Many Requests).", "HttpRequestException: Response status code does not indicate success: 429 (Too Many Requests)."},
		{"a count after returned is no code", "ReconcileError: query returned 500 rows", "ReconcileError: query returned <n> rows"},
		{"oracle", "ORA-00001: Unique Constraint (SHOP.ORDERS_PK) verletzt", "ORA-00001: Unique Constraint (SHOP.ORDERS_PK) verletzt"},
		{"a count is no code", "Timeout: 120 items in 300 ms", "Timeout: <n> items in <n> ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.in); got != tt.want {
				t.Errorf("Of(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSignatureBounded(t *testing.T) {
	long := "Boom: " + strings.Repeat("é", 300)
	got := Of(long)
	if len(got) > maxSignature {
		t.Fatalf("signature is %d bytes, want at most %d", len(got), maxSignature)
	}
	if !strings.HasPrefix(got, "Boom: é") || !isValidUTF8(got) {
		t.Fatalf("signature %q: want a valid prefix of the text", got)
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestSignatureVersion1: version 1 replaced every number, codes too; a
// classification made with it still finds its groups by it.
func TestSignatureVersion1(t *testing.T) {
	in := "UpstreamError: inventory returned HTTP 503 (SQLSTATE 08006)"
	if got, want := OfVersion(in, 1), "UpstreamError: inventory returned HTTP <n> (SQLSTATE <n>)"; got != want {
		t.Errorf("OfVersion(1) = %q, want %q", got, want)
	}
	if got, want := Of(in), "UpstreamError: inventory returned HTTP 503 (SQLSTATE 08006)"; got != want {
		t.Errorf("Of = %q, want %q", got, want)
	}
}

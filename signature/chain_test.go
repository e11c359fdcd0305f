package signature

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChain: of chained errors, the root cause is the headline.
func TestChain(t *testing.T) {
	timeout := "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='ledger', port=443): Read timed out."
	tests := []struct{ name, in, root, outer string }{
		{"python: during handling", "Traceback (most recent call last):\n  File \"t.py\", line 4, in charge\n    post()\n" + timeout +
			"\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"t.py\", line 7, in charge\n    r[\"id\"]\nTypeError: 'NoneType' object is not subscriptable",
			timeout, "TypeError: 'NoneType' object is not subscriptable"},
		{"python: direct cause", "Traceback (most recent call last):\n  File \"t.py\", line 4\nKeyError: 'sku'\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"t.py\", line 9\nLookupFailed: no sku",
			"KeyError: 'sku'", "LookupFailed: no sku"},
		{".NET inner exception", "System.InvalidOperationException: Could not record the charge ---> System.TimeoutException: The operation has timed out.\n   at X.Y()\n   --- End of inner exception stack trace ---",
			"System.TimeoutException: The operation has timed out.", "System.InvalidOperationException: Could not record the charge"},
		{"node cause", "TypeError: Cannot read properties of undefined (reading 'status')\n    at handle (/var/task/i.js:9:3) {\n  [cause]: TimeoutError: The operation was aborted due to timeout\n}",
			"TimeoutError: The operation was aborted due to timeout", "TypeError: Cannot read properties of undefined (reading 'status')"},
		{"one line", "charge failed: TypeError: x is undefined (caused by: ETIMEDOUT connect to ledger)", "ETIMEDOUT connect to ledger", "charge failed: TypeError: x is undefined"},
		{"one error", "SkuNotFound: SKU-9123", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outer := Chain(tt.in)
			if diff := cmp.Diff([]string{tt.root, tt.outer}, []string{root, outer}); diff != "" {
				t.Errorf("[root outer] (-want +got)\n%s", diff)
			}
			if tt.root != "" && Headline(tt.in) != tt.root {
				t.Errorf("Headline = %q, want the root cause %q", Headline(tt.in), tt.root)
			}
		})
	}
}

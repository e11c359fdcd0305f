package report

import (
	"testing"

	"github.com/mfdlq/mfdlq/redrive/window"
)

// The summary's redrive line names the idempotency window and what the
// redrive did with the messages beyond it.
func TestWindowText(t *testing.T) {
	t.Parallel()
	inc := &Incident{}
	for _, c := range []struct {
		w    *window.Figures
		want string
	}{
		{nil, ""},
		{&window.Figures{Table: "mercadofresco-idempotencia", WindowSeconds: 3600, Estimated: true, BeyondWindow: "keep", Beyond: 212}, "; idempotency store mercadofresco-idempotencia, window at least 1h, 212 beyond it left in the DLQ"},
		{&window.Figures{Table: "t", WindowSeconds: 86400, BeyondWindow: "move", Beyond: 3}, "; idempotency store t, window 24h, 3 beyond it moved anyway (--beyond-window move)"},
		{&window.Figures{Table: "t", WindowSeconds: 3600}, "; idempotency store t, window 1h, none beyond it"},
		{&window.Figures{Table: "t"}, "; idempotency store t, window not known"},
	} {
		if got := inc.windowText(c.w); got != c.want {
			t.Errorf("windowText(%+v) = %q, want %q", c.w, got, c.want)
		}
	}
}

package incident

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type testFigures struct {
	Moved     int       `json:"moved"`
	Rate      float64   `json:"rate"`
	DestQueue string    `json:"dest_queue"`
	StartedAt time.Time `json:"started_at"`
	Consumers []string  `json:"consumers,omitempty"`
}

// TestFiguresRoundTripThroughEventsFile writes figures and inputs with
// their types, appends the event, and reads them back with the same types.
func TestFiguresRoundTripThroughEventsFile(t *testing.T) {
	ws, err := Open(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	want := testFigures{Moved: 340, Rate: 9.5, DestQueue: "orders <&>", StartedAt: time.Date(2026, 11, 30, 3, 21, 0, 0, time.UTC)}
	ev := Event{Step: StepRedrive}
	if err := ev.SetFigures(want); err != nil {
		t.Fatal(err)
	}
	if err := ev.SetInputs(struct {
		Change string `json:"change"`
	}{"v2"}); err != nil {
		t.Fatal(err)
	}
	if err := ws.Append(ev); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ws.Latest(StepRedrive)
	if err != nil || !ok {
		t.Fatalf("Latest: %v, %v", ok, err)
	}
	var f testFigures
	if err := got.DecodeFigures(&f); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	var in struct {
		Change string `json:"change"`
	}
	if err := got.DecodeInputs(&in); err != nil || in.Change != "v2" {
		t.Errorf("inputs = %+v, %v; want change v2", in, err)
	}
}

// TestDecodeFiguresOfOldAndDamagedEvents: no figures leave v as it is;
// whole numbers an older mfdlq wrote from a float64 read as integers; a
// figure of another type is named in the error and the others still read.
func TestDecodeFiguresOfOldAndDamagedEvents(t *testing.T) {
	keep := testFigures{Moved: 7}
	if err := (Event{Step: "fix"}).DecodeFigures(&keep); err != nil || keep.Moved != 7 {
		t.Errorf("no figures: %+v, %v; want v untouched, no error", keep, err)
	}
	if err := (Event{Step: "fix", Figures: []byte("null")}).DecodeFigures(&keep); err != nil || keep.Moved != 7 {
		t.Errorf("null figures: %+v, %v; want v untouched, no error", keep, err)
	}
	var f testFigures
	old := Event{Step: "redrive", Figures: []byte(`{"moved":340.0,"rate":1e1,"dest_queue":"q 1.0e2","consumers":["a"]}`)}
	if err := old.DecodeFigures(&f); err != nil || f.Moved != 340 || f.Rate != 10 || f.DestQueue != "q 1.0e2" {
		t.Errorf("old floats: %+v, %v; want moved 340, rate 10, the string as written", f, err)
	}
	f = testFigures{}
	bad := Event{Step: "redrive", Figures: []byte(`{"moved":"many","rate":2.5,"dest_queue":"orders"}`)}
	err := bad.DecodeFigures(&f)
	if err == nil || !strings.Contains(err.Error(), "redrive event's figures") || !strings.Contains(err.Error(), "moved") {
		t.Errorf("error = %v; want one naming the step and the figure", err)
	}
	if f.Rate != 2.5 || f.DestQueue != "orders" {
		t.Errorf("lenient read = %+v; want the other figures", f)
	}
	f = testFigures{}
	frac := Event{Step: "redrive", Figures: []byte(`{"moved":3.5}`)}
	if err := frac.DecodeFigures(&f); err == nil {
		t.Errorf("3.5 messages read as %d without an error", f.Moved)
	}
}

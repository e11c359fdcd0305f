package version

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// TestVersionTakesNoArgument: `mfdlq version extra` is refused before the
// run; a bare `mfdlq version` reaches it.
func TestVersionTakesNoArgument(t *testing.T) {
	d, _, _ := cmdtest.Deps(t, false)
	called := false
	c := NewCmdVersion(d, func(*VersionOptions) error { called = true; return nil })
	if err := cmdtest.ParseWith(c, []string{"extra"}); err == nil || called {
		t.Fatalf("version extra = %v, run called %v: want an error before the run", err, called)
	}
	if err := cmdtest.ParseWith(NewCmdVersion(d, func(*VersionOptions) error { called = true; return nil }), nil); err != nil || !called {
		t.Fatalf("version = %v, run called %v", err, called)
	}
}

// TestVersionOutput: the one line, or under --output json the build as one
// object with its version.
func TestVersionOutput(t *testing.T) {
	want := cmdutil.ReadBuildVersion()
	d, out, _ := cmdtest.Deps(t, false)
	c := NewCmdVersion(d, nil)
	c.SetOut(out)
	c.SetArgs(nil)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want.String()+"\n" || !strings.HasPrefix(got, "mfdlq ") {
		t.Errorf("version printed %q, want %q", got, want.String()+"\n")
	}
	d, out, _ = cmdtest.Deps(t, false)
	d.Global.Output = "json"
	c = NewCmdVersion(d, nil)
	c.SetArgs(nil)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	var got cmdutil.BuildVersion
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got != want {
		t.Errorf("version --output json = %q (%v), want %+v", out, err, want)
	}
}

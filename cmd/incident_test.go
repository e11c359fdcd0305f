package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/check"
	"github.com/mfdlq/mfdlq/cmd/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cmd/contain"
	"github.com/mfdlq/mfdlq/cmd/inspect"
	"github.com/mfdlq/mfdlq/cmd/logs"
	"github.com/mfdlq/mfdlq/cmd/record"
	"github.com/mfdlq/mfdlq/cmd/redrive"
	"github.com/mfdlq/mfdlq/cmd/runbook"
	"github.com/mfdlq/mfdlq/cmd/verify"
	"github.com/mfdlq/mfdlq/incident"
)

// TestUnsafeIncidentStopsEveryCommandBeforeAWS gives every command that
// writes or reads an incident an unsafe --incident: each must fail with
// exit 2 in RunE, before its run function — and so before any AWS client
// is built — is called.
func TestUnsafeIncidentStopsEveryCommandBeforeAWS(t *testing.T) {
	commands := []struct {
		name string
		args []string
		cmd  func(d *cmdutil.Deps, called *bool) *cobra.Command
	}{
		{"check", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return check.NewCmdCheck(d, func(*check.CheckOptions) error { *c = true; return nil })
		}},
		{"classify", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return classify.NewCmdClassify(d, func(*classify.ClassifyOptions) error { *c = true; return nil })
		}},
		{"contain", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return contain.NewCmdContain(d, func(*contain.ContainOptions) error { *c = true; return nil })
		}},
		{"inspect", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return inspect.NewCmdInspect(d, func(*inspect.InspectOptions) error { *c = true; return nil })
		}},
		{"logs", []string{"--queue", "orders-dlq", "--log-group", "/aws/lambda/orders"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return logs.NewCmdLogs(d, func(*logs.LogsOptions) error { *c = true; return nil })
		}},
		{"record", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return record.NewCmdRecord(d, func(*record.RecordOptions) error { *c = true; return nil })
		}},
		{"redrive", []string{"--queue", "orders-dlq", "--dry-run", "--rate", "10"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return redrive.NewCmdRedrive(d, func(*redrive.RedriveOptions) error { *c = true; return nil })
		}},
		{"runbook", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return runbook.NewCmdRunbook(d, runbookStep, func(*runbook.RunbookOptions) error { *c = true; return nil })
		}},
		{"verify", []string{"--queue", "orders-dlq"}, func(d *cmdutil.Deps, c *bool) *cobra.Command {
			return verify.NewCmdVerify(d, func(*verify.VerifyOptions) error { *c = true; return nil })
		}},
	}
	dirs := []struct {
		name, problem string
		make          func(t *testing.T) string
	}{
		{"symlink", "is a symbolic link", func(t *testing.T) string {
			root := t.TempDir()
			link := filepath.Join(root, "link")
			if err := os.Symlink(t.TempDir(), link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
		{"shared", "writable by group or others", func(t *testing.T) string {
			d := t.TempDir()
			if err := os.Chmod(d, 0o1777); err != nil {
				t.Fatal(err)
			}
			return d
		}},
		{"file", "is not a directory", func(t *testing.T) string {
			f := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return f
		}},
	}
	for _, c := range commands {
		for _, dir := range dirs {
			t.Run(c.name+"/"+dir.name, func(t *testing.T) {
				d, _, _ := testDeps(t, false)
				d.Global.Incident = dir.make(t)
				called := false
				err := parseWith(c.cmd(d, &called), c.args)
				if called {
					t.Fatal("the run function was called: AWS clients could have been built")
				}
				if cmdutil.ExitCode(err, false) != cmdutil.ExitUsage || err == nil || !strings.Contains(err.Error(), dir.problem) {
					t.Fatalf("err = %v (exit %d), want exit 2 saying %q", err, cmdutil.ExitCode(err, false), dir.problem)
				}
			})
		}
	}
}

// TestDefaultIncidentDirIsCheckedToo covers the open incident under
// ./incidents that a step continues when --incident is not given: the
// queue's name comes from its URL or ARN without AWS, and a shared
// directory found there is refused like a shared --incident. (A symlink
// there is never continued: LatestOpen skips it and NewDir picks a new
// name beside it.)
func TestDefaultIncidentDirIsCheckedToo(t *testing.T) {
	d, _, _ := testDeps(t, false)
	d.Global.Incident = ""
	t.Setenv("MFDLQ_INCIDENT", "")
	t.Chdir(t.TempDir())
	open := filepath.Join(incident.Root, incident.NewName("orders-dlq", d.Now()))
	if err := os.MkdirAll(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	called := false
	err := parseWith(inspect.NewCmdInspect(d, func(*inspect.InspectOptions) error { called = true; return nil }),
		[]string{"--queue", "arn:aws:sqs:us-east-1:123456789012:orders-dlq"})
	if called || cmdutil.ExitCode(err, false) != cmdutil.ExitUsage || !strings.Contains(err.Error(), open) {
		t.Fatalf("err = %v, called %v; want exit 2 naming %s before the run function", err, called, open)
	}
	st, err := os.Stat(open)
	if err != nil || st.Mode().Perm() != 0o777 {
		t.Errorf("mode of %s after the refusal: %v, %v; want 0777 left as it was", open, st, err)
	}
}

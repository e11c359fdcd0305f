package redrive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

func TestRedriveFromFileFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"MessageId\":\"a\",\"Body\":\"\"}\n{\"MessageId\":\"a\",\"Body\":\"x\"}\n"), 0o600)
	for args, want := range map[string]string{
		"--rate 1": "--queue is required: the DLQ's name, URL or ARN",
		"--from-file f --queue q --to d --rate 1": "--queue and --from-file: choose one source",
		"--from-file f --to d --rate 1 --keep":    "--from-file moves a file's messages: --native and --keep do not apply",
		"--from-file s3://b --to d --rate 1":      `--from-file "b": not a bucket name (3-63 lowercase letters, digits, dots and hyphens)`,
		"--from-file " + bad + " --to d --rate 1": "--from-file " + bad + ": line 2: MessageId a again (first on line 1): each message must appear once: nothing sent; give a file mfdlq export wrote (JSON Lines of SQS messages)",
	} {
		t.Run(args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			cmdtest.CheckUsageErr(t, cmdtest.ParseWith(NewCmdRedrive(d, func(*RedriveOptions) error { return nil }), strings.Fields(args)), want)
		})
	}
}

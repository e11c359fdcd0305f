package cmd

import (
	"os/exec"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// mfdlqBinary is the path of mfdlq for a test that runs it as a process
// of its own (a SIGKILL, two runs at once) outside testscript: the copy of
// this test binary that testscript.Main put on PATH as "mfdlq", which runs
// Main. Building the module again for each such test cost a link (seconds
// on two loaded cores) and ran the same code.
func mfdlqBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("mfdlq")
	if err != nil {
		t.Fatalf("mfdlq is not on PATH: TestMain runs testscript.Main, which puts it there: %v", err)
	}
	return bin
}

// arrivals counts how many times each body arrived in msgs.
func arrivals(msgs []types.Message) map[string]int {
	seen := map[string]int{}
	for _, m := range msgs {
		seen[aws.ToString(m.Body)]++
	}
	return seen
}

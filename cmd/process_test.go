package cmd

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// buildBinary builds mfdlq into dir for a test that runs it as a process of
// its own (a SIGKILL, two runs at once) outside testscript, and returns
// its path.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mfdlq")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/mfdlq/mfdlq").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
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

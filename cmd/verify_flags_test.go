package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestVerifyPeekFlags: --no-peek and --force, the two ways past a DLQ with
// its own redrive policy, parse (that they exclude each other, exit 2, is
// in testdata/script/verify_dests.txtar).
func TestVerifyPeekFlags(t *testing.T) {
	base := verifyOptions{Queue: "q", Wait: 10 * time.Minute, Interval: 15 * time.Second, Settle: time.Minute, Left: -1}
	noPeek, force := base, base
	noPeek.NoPeek, force.Force = true, true
	tests := []struct {
		args string
		want verifyOptions
	}{
		{args: "--queue q --no-peek", want: noPeek},
		{args: "--queue q --force", want: force},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			checkParse(t, d, newVerifyCmd, strings.Fields(tc.args), tc.want, "", cmpopts.IgnoreUnexported(verifyOptions{}))
		})
	}
}

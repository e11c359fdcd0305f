// Command demo seeds mfdlq's demo incidents on a local AWS (moto). It is run
// by scripts/demo.sh (make demo) and never points at a real account: it
// refuses to run without AWS_ENDPOINT_URL.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mfdlq/mfdlq/internal/demo/scenario"
)

func main() {
	if len(os.Args) < 3 || os.Args[1] != "seed" {
		fmt.Fprintln(os.Stderr, "usage: demo seed deploy|outage")
		os.Exit(2)
	}
	if os.Getenv("AWS_ENDPOINT_URL") == "" {
		fmt.Fprintln(os.Stderr, "demo: AWS_ENDPOINT_URL is not set: run it through scripts/with-localaws.sh (make demo)")
		os.Exit(2)
	}
	if err := scenario.Seed(context.Background(), os.Args[2], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

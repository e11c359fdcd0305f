// Command mfdlq is the on-call CLI for SQS dead-letter queues.
package main

import (
	"os"

	"github.com/mfdlq/mfdlq/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:])) }

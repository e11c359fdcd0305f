package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/mfdlq/mfdlq/internal/alarmhistory"
	"github.com/mfdlq/mfdlq/internal/cloudtrail"
)

// standins serves the CloudTrail and alarm-history stand-ins (moto has
// neither LookupEvents nor DescribeAlarmHistory) on loopback ports until
// ctx ends. It prints their endpoints as shell assignments first, for
// demo.sh to export.
func standins(ctx context.Context) error {
	hist, err := alarmhistory.New(os.Getenv("AWS_ENDPOINT_URL"))
	if err != nil {
		return err
	}
	servers := map[string]http.Handler{"AWS_ENDPOINT_URL_CLOUDTRAIL": cloudtrail.New(), "AWS_ENDPOINT_URL_CLOUDWATCH": hist}
	errs := make(chan error, len(servers))
	for name, h := range servers {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: h}
		go func() { errs <- srv.Serve(l) }()
		go func() { <-ctx.Done(); srv.Close() }()
		fmt.Printf("%s='http://%s'\n", name, l.Addr())
	}
	os.Stdout.Sync()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errs:
		return err
	}
}

// Package localaws gives tests a real local AWS: moto's server, reached
// through the real SDK. A test binary either uses the server named by
// MFDLQ_TEST_ENDPOINT or starts its own moto server (moto_server.py) on a
// free loopback port, when its first test asks for it (Endpoint, Config),
// until its tests end. A missing server fails the tests that need it, never
// a silent skip; tests that touch no AWS run without one.
package localaws

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// EnvEndpoint names a running local AWS server for tests to use.
const EnvEndpoint = "MFDLQ_TEST_ENDPOINT"

// MotoVersion is the moto release mfdlq is tested against.
const MotoVersion = "5.2.1"

// Region and Account are what moto answers with.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

var (
	mu       sync.Mutex
	endpoint string
	started  bool   // Start was tried: endpoint or startErr holds its result
	startErr error  // why the server did not start, told to every test that needs it
	stop     func() // stops the server Start began; nil when none
	inRun    bool   // Wrap's Run is under way
)

// TestingM is implemented by *testing.M.
type TestingM interface{ Run() int }

// Wrap returns m with a local AWS around its Run, started lazily: the first
// Endpoint or Config call starts the server (or finds it through
// MFDLQ_TEST_ENDPOINT), and Run stops it at the end. A package whose tests
// touch no AWS so needs no python3 and no moto. Before any test the process
// environment gets dummy credentials and an endpoint that refuses, and
// AWS_PROFILE is cleared, so no test can reach a real account; the first
// start points AWS_ENDPOINT_URL at the server.
func Wrap(m TestingM) TestingM { return wrapped{m: m} }

// WrapOnDemand is Wrap for a package whose tests also reach the local AWS
// through the process environment alone (cmd's in-process commands and
// the binary it runs): AWS_ENDPOINT_URL points at a loopback listener that
// starts the server on its first connection and forwards every connection
// to it. A test that touches no AWS so starts nothing, and one that reads
// only the environment still finds the server; the first start points
// AWS_ENDPOINT_URL at the server itself, as Wrap's does.
func WrapOnDemand(m TestingM) TestingM { return wrapped{m: m, onDemand: true} }

type wrapped struct {
	m        TestingM
	onDemand bool
}

// deadEndpoint is AWS_ENDPOINT_URL until the server starts: a test that
// reads the environment without asking for the server fails at once, on
// the loopback, never at AWS.
const deadEndpoint = "http://127.0.0.1:1"

func (w wrapped) Run() int {
	mu.Lock()
	inRun = true
	mu.Unlock()
	ep := deadEndpoint
	if w.onDemand {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintf(os.Stderr, "localaws: %v\n", err)
			return 1
		}
		defer ln.Close()
		go startOnDemand(ln)
		ep = "http://" + ln.Addr().String()
	}
	for k, v := range Env(ep) {
		os.Setenv(k, v)
	}
	os.Unsetenv("AWS_PROFILE")
	os.Unsetenv("AWS_SESSION_TOKEN")
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		inRun = false
		if stop != nil {
			stop()
			stop = nil
		}
	}()
	return w.m.Run()
}

// startOnDemand serves WrapOnDemand's listener: each connection starts
// the server if it is not running yet and is forwarded to it. When the
// server cannot start, the connection is closed and the reason said once.
func startOnDemand(ln net.Listener) {
	var said sync.Once
	for {
		c, err := ln.Accept()
		if err != nil {
			return // Run closed the listener
		}
		go func() {
			defer c.Close()
			ep, err := lazyStart()
			if err != nil {
				said.Do(func() { fmt.Fprintf(os.Stderr, "localaws: %v\n", err) })
				return
			}
			s, err := net.Dial("tcp", strings.TrimPrefix(ep, "http://"))
			if err != nil {
				return
			}
			defer s.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(s, c)
				s.(*net.TCPConn).CloseWrite()
				close(done)
			}()
			io.Copy(c, s)
			c.(*net.TCPConn).CloseWrite()
			<-done
		}()
	}
}

// Env is the environment that points the SDK (and mfdlq) at ep.
func Env(ep string) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":           "test",
		"AWS_SECRET_ACCESS_KEY":       "test",
		"AWS_REGION":                  Region,
		"AWS_ENDPOINT_URL":            ep,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
	}
}

// Endpoint returns the local AWS endpoint of this test binary, starting the
// server on the first call; t fails when it cannot start.
func Endpoint(t testing.TB) string {
	t.Helper()
	ep, err := lazyStart()
	if err != nil {
		t.Fatalf("localaws: %v", err)
	}
	return ep
}

// lazyStart starts the server once per test binary, under Wrap's Run.
func lazyStart() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if !inRun {
		return "", errors.New("no local AWS: call localaws.Wrap(m) in TestMain")
	}
	if !started {
		started = true
		endpoint, stop, startErr = Start()
		if startErr == nil {
			os.Setenv("AWS_ENDPOINT_URL", endpoint)
		}
	}
	return endpoint, startErr
}

// Config returns an SDK configuration for the local AWS.
func Config(t testing.TB) aws.Config {
	t.Helper()
	ep := Endpoint(t)
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion(Region),
		config.WithBaseEndpoint(ep),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		})),
	)
	if err != nil {
		t.Fatalf("localaws: config: %v", err)
	}
	return cfg
}

// UniqueName returns base with a random suffix, so tests sharing one server
// never see each other's queues.
func UniqueName(base string) string {
	var b [4]byte
	rand.Read(b[:])
	return base + "-" + hex.EncodeToString(b[:])
}

// MotoServer is moto_server.py: moto's own server with the CPU that moto
// 5.2.1 wastes on every SQS receive and EventBridge put taken out. One
// moto answers every test of a package (of `make test`, through
// scripts/with-localaws.sh), so that CPU made every other test wait.
//
//go:embed moto_server.py
var MotoServer string

// Start returns the endpoint of a local AWS and a function that stops it:
// MFDLQ_TEST_ENDPOINT when set (stop does nothing), else a moto server of
// our own (MotoServer) on a free loopback port.
func Start() (string, func(), error) {
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		if err := waitReady(ep, 10*time.Second, nil); err != nil {
			return "", nil, fmt.Errorf("%s=%s does not answer: %w", EnvEndpoint, ep, err)
		}
		return ep, func() {}, nil
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		return "", nil, fmt.Errorf("python3 not found: install it and pip install 'moto[server]==%s', or set %s", MotoVersion, EnvEndpoint)
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	stderr := &head{max: 4 << 10}
	cmd := exec.Command(python, "-c", MotoServer, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = nil, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start moto server: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	ep := fmt.Sprintf("http://127.0.0.1:%d", port)
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		<-exited
	}
	if err := waitReady(ep, 30*time.Second, exited); err != nil {
		stop()
		return "", nil, fmt.Errorf("moto server on %s: %w (pip install 'moto[server]==%s')\n%s", ep, err, MotoVersion, stderr.String())
	}
	return ep, stop, nil
}

// head keeps the first max bytes written to it: why the server did not
// start, without keeping the log of every request it answered after.
type head struct {
	max int
	b   []byte
}

func (h *head) Write(p []byte) (int, error) {
	h.b = append(h.b, p[:min(len(p), h.max-len(h.b))]...)
	return len(p), nil
}

func (h *head) String() string { return string(h.b) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls moto's own API until it answers, or the server exits.
func waitReady(ep string, limit time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		resp, err := client.Get(strings.TrimSuffix(ep, "/") + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("not ready after " + limit.String())
}

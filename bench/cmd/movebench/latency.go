package main

import (
	"encoding/json"
	"fmt"
	"github.com/mfdlq/mfdlq/incident"
	moved "github.com/mfdlq/mfdlq/redrive"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// latencyProxy starts the proxy that adds d to every call to the server
// in AWS_ENDPOINT_URL, and a client of the bare loop that goes through it;
// for d = 0 no proxy, and the client calls the server itself.
func latencyProxy(cfg aws.Config, d time.Duration) (*faultproxy.Proxy, *httptest.Server, *sqs.Client) {
	if d == 0 {
		return nil, nil, sqsapi.New(cfg)
	}
	p := faultproxy.New(os.Getenv("AWS_ENDPOINT_URL"), 0, 1)
	p.Delay = d
	srv := httptest.NewUnstartedServer(p)
	srv.Config.ConnState = p.ConnState
	srv.Start()
	client := sqsapi.New(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	return p, srv, client
}

// contender is one way to move the messages: mfdlq with some flags, or the
// bare loop with some workers.
type contender struct {
	name  string
	bin   string   // another mfdlq binary than -bin ("default:PATH")
	args  []string // mfdlq's flags after --rate max
	bare  int      // > 0: the bare loop with this many workers
	atTop bool     // the bare loop with the workers mfdlq's default reached
}

func parseContenders(spec string) []contender {
	var out []contender
	for _, c := range strings.Split(spec, ",") {
		switch {
		case c == "default":
			out = append(out, contender{name: "mfdlq defaults"})
		case strings.HasPrefix(c, "default:"):
			// Another build's defaults in the same run: a before and an
			// after side by side, under the same load.
			path := strings.TrimPrefix(c, "default:")
			out = append(out, contender{name: "mfdlq defaults, " + filepath.Base(path), bin: path})
		case strings.HasPrefix(c, "w"):
			out = append(out, contender{name: "mfdlq --workers " + c[1:], args: []string{"--workers", c[1:]}})
		case c == "bare@peak":
			out = append(out, contender{name: "bare loop at the default's peak", atTop: true})
		case strings.HasPrefix(c, "bare"):
			n, err := strconv.Atoi(c[4:])
			check(err)
			out = append(out, contender{name: "bare loop, " + c[4:] + " worker(s)", bare: n})
		default:
			check(fmt.Errorf("unknown contender %q", c))
		}
	}
	return out
}

// latencyMode moves n messages through the latency proxy with each
// contender, rounds times, in an order that rotates every round, and
// prints the medians and the ratios the issue sets targets for.
func latencyMode(s *localaws.Seeder, cfg aws.Config) {
	proxy, srv, client := latencyProxy(cfg, *latency)
	endpoint := []string{}
	if srv != nil {
		defer srv.Close()
		endpoint = []string{"--endpoint-url", srv.URL}
	}
	cs := parseContenders(*contenders)
	rates := make([][]float64, len(cs))
	// moves are mfdlq's rates over the move phase alone (the redrive
	// event's duration): without process start, queue resolution, the plan
	// and the lease's one-second read-back, which a 5,000-message move at
	// thousands of messages a second feels as much as the move itself.
	moves := make([][]float64, len(cs))
	peaks := []float64{}
	peak := 8
	fmt.Printf("latency: %d messages, %s added to every call, %d rounds, load %s\n", *n, *latency, *rounds, loadavg())
	for r := range *rounds {
		for k := range cs {
			i := (k + r) % len(cs)
			c := cs[i]
			name, src, dlq, bodies := fill(s, *n)
			settle()
			conns := int64(0)
			if proxy != nil {
				conns = proxy.Conns()
			}
			var rate, move float64
			// verify fails the bench on a lost body or attribute; dups
			// counts the bodies delivered more than once.
			dups := 0
			workers := c.bare
			switch {
			case c.bare > 0 || c.atTop:
				if c.atTop {
					workers = peak
				}
				rate = float64(*n) / bareLoop(client, dlq, src, *n, workers).Seconds()
				dups = verify(c.name, s, src, dlq, bodies)
			default:
				own := *bin
				if c.bin != "" {
					*bin = c.bin
				}
				el, out, err := redrive(name, append(append([]string{"--rate", "max", "--quiet"}, endpoint...), c.args...)...)
				*bin = own
				if err != nil {
					check(fmt.Errorf("%s: %v\n%s", c.name, err, out))
				}
				rate = float64(*n) / el.Seconds()
				if secs := moveSeconds(); secs > 0 {
					move = float64(*n) / secs
					moves[i] = append(moves[i], move)
				}
				workers = lastRedrive().PeakWorkers
				dups = verify(c.name, s, src, dlq, bodies)
				if len(c.args) == 0 {
					peak = workers
					peaks = append(peaks, float64(workers))
				}
			}
			rates[i] = append(rates[i], rate)
			opened := "-"
			if proxy != nil {
				opened = strconv.FormatInt(proxy.Conns()-conns, 10)
			}
			phase := ""
			if move > 0 {
				phase = fmt.Sprintf(", move phase %.0f msg/s", move)
			}
			fmt.Printf("round %d: %-34s %7.0f msg/s  (%d in flight at most, %s connections opened%s; %d duplicate(s), none lost; load %s)\n", r+1, c.name, rate, workers, opened, phase, dups, loadavg())
		}
	}
	summarize(cs, rates, peaks)
	summarizeMoves(cs, rates, moves)
}

// summarize prints each contender's median and the ratios of mfdlq's
// defaults to the others.
func summarize(cs []contender, rates [][]float64, peaks []float64) {
	med := make([]float64, len(cs))
	def, bare1, best := -1, -1, -1
	for i, c := range cs {
		med[i] = median(rates[i])
		fmt.Printf("median %-34s %7.0f msg/s\n", c.name, med[i])
		switch {
		case c.name == "mfdlq defaults":
			def = i
		case c.bare == 1:
			bare1 = i
		case len(c.args) > 0 && (best < 0 || med[i] > med[best]):
			best = i
		}
	}
	for i, c := range cs {
		if c.bare > 1 || c.atTop {
			for j, o := range cs {
				if o.bin != "" {
					fmt.Printf("%s / %s: %.0f%%\n", o.name, c.name, 100*med[j]/med[i])
				}
			}
		}
	}
	if def < 0 {
		return
	}
	if len(peaks) > 0 {
		fmt.Printf("mfdlq defaults reached at most %.0f batches in flight (median of the rounds)\n", median(peaks))
	}
	if bare1 >= 0 {
		fmt.Printf("defaults / bare loop of 1 worker: %.1f×\n", med[def]/med[bare1])
	}
	if best >= 0 {
		fmt.Printf("defaults / best fixed (%s): %.0f%%\n", cs[best].name, 100*med[def]/med[best])
	}
	for i, c := range cs {
		if c.bare > 1 || c.atTop {
			fmt.Printf("defaults / %s: %.0f%%\n", c.name, 100*med[def]/med[i])
		}
	}
}

// summarizeMoves prints mfdlq's medians over the move phase alone and
// their ratio to the bare loops, whose whole run is a move phase.
func summarizeMoves(cs []contender, rates, moves [][]float64) {
	def := -1
	for i, c := range cs {
		if len(moves[i]) == 0 {
			continue
		}
		fmt.Printf("median %-34s %7.0f msg/s (move phase)\n", c.name, median(moves[i]))
		if c.name == "mfdlq defaults" {
			def = i
		}
	}
	if def < 0 {
		return
	}
	for i, c := range cs {
		if c.bare > 1 || c.atTop {
			fmt.Printf("defaults, move phase / %s: %.0f%%\n", c.name, 100*median(moves[def])/median(rates[i]))
		}
	}
}

// lastRedrive is the figures of the last redrive's event, read with
// redrive's own type.
func lastRedrive() moved.Figures {
	f, err := os.ReadFile(filepath.Join(lastIncident, "events.jsonl"))
	check(err)
	var fig moved.Figures
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		var ev incident.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Step == incident.StepRedrive {
			fig = moved.FiguresOf(ev)
		}
	}
	return fig
}

// loadavg is the machine's 1-minute load average, to read the figures by.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// rateLatencyMode is -mode rate through the latency proxy: the achieved
// rate against the one asked for. mfdlq's achieved rate counts from the
// rate's clock, which starts at the lease request but at most one bucket
// (a tenth of a second at 1,000 msg/s) before the move phase.
func rateLatencyMode(s *localaws.Seeder, cfg aws.Config) {
	_, srv, _ := latencyProxy(cfg, *latency)
	defer srv.Close()
	name, src, dlq, bodies := fill(s, *n)
	settle()
	el, out, err := redrive(name, "--rate", *rateF, "--endpoint-url", srv.URL, "--output", "json")
	if err != nil {
		check(fmt.Errorf("%v\n%s", err, out))
	}
	r, _ := strconv.ParseFloat(*rateF, 64)
	move := moveSeconds()
	dups := verify("rate", s, src, dlq, bodies)
	last := lastRedrive()
	achieved := last.AchievedRate
	fmt.Printf("rate: %d messages at --rate %s with %s per call (load %s): achieved %.1f msg/s = %.1f%% of the rate (move phase %.2f s, ideal %.2f s); process %.2f s; at most %d batches in flight; %d duplicate(s), DLQ empty\n",
		*n, *rateF, *latency, loadavg(), achieved, 100*achieved/r, move, float64(*n)/r, el.Seconds(), last.PeakWorkers, dups)
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "not reached") {
			fmt.Println(line)
		}
	}
}

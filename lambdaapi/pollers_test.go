package lambdaapi

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/mfdlq/mfdlq/internal/awslimits"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A mapping in provisioned mode: moto keeps its ProvisionedPollerConfig
// (read back here) but, unlike Lambda, also takes a MaximumConcurrency
// beside it; the limits proxy refuses that as Lambda does. The cap of
// contain --cap-concurrency 50 is then MaximumPollers 5, which Lambda
// takes, where a MaximumConcurrency is refused; a resume puts the pollers
// back.
func TestCapInProvisionedMode(t *testing.T) {
	ctx := context.Background()
	p, err := awslimits.New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("pollers")
	url, err := s.CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	qarn, err := s.Attribute(ctx, url, "QueueArn")
	if err != nil {
		t.Fatal(err)
	}
	fn, err := localaws.CreateFunction(ctx, cfg, name, localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseEndpoint = aws.String(hs.URL)
	l := lambda.NewFromConfig(cfg)
	if _, err := l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String(qarn), FunctionName: aws.String(fn),
		ProvisionedPollerConfig: &types.ProvisionedPollerConfig{MinimumPollers: aws.Int32(4), MaximumPollers: aws.Int32(100)}}); err != nil {
		t.Fatal(err)
	}
	ms, err := Mappings(ctx, l, name, qarn, 30)
	if err != nil || len(ms) != 1 {
		t.Fatalf("mappings %+v, %v", ms, err)
	}
	m := ms[0]
	if m.Pollers == nil || *m.Pollers != (Pollers{Min: 4, Max: 100}) || m.MaximumConcurrency != nil {
		t.Fatalf("mapping %+v: want provisioned mode 4-100", m)
	}

	// What the cap was before: a MaximumConcurrency, which Lambda refuses.
	plain := MappingChange{Action: ActionCap, UUID: m.UUID, Before: StateOf(m), After: StateOf(m)}
	plain.After.Pollers, plain.After.MaximumConcurrency = nil, aws.Int32(50)
	if _, err := Apply(ctx, l, plain); err == nil || !strings.Contains(err.Error(), "InvalidParameterValueException") {
		t.Fatalf("MaximumConcurrency in provisioned mode: %v, want Lambda's refusal", err)
	}

	c, err := Plan(ActionCap, m, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.After.MaximumConcurrency != nil || c.After.Pollers == nil || *c.After.Pollers != (Pollers{Min: 4, Max: 5}) {
		t.Fatalf("cap 50 in provisioned mode: %+v, want pollers 4-5 and no MaximumConcurrency", c.After)
	}
	got, err := Apply(ctx, l, c)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pollers == nil || got.Pollers.Max != 5 {
		t.Fatalf("after the cap: %+v", got.Pollers)
	}
	if !strings.Contains(c.After.String(), "provisioned mode, 4-5 pollers (up to 50 concurrent invocations)") {
		t.Errorf("after: %s", c.After)
	}
	ms, _ = Mappings(ctx, l, name, qarn, 30)
	back, err := Plan(ActionResume, ms[0], 0, &c.Before)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Apply(ctx, l, back); err != nil || got.Pollers == nil || *got.Pollers != (Pollers{Min: 4, Max: 100}) {
		t.Fatalf("resume: %+v, %v", got.Pollers, err)
	}
}

func TestCapPollers(t *testing.T) {
	for _, c := range []struct {
		p    Pollers
		n    int32
		want Pollers
	}{
		{Pollers{2, 200}, 50, Pollers{2, 5}},
		{Pollers{2, 200}, 2, Pollers{2, 2}},
		{Pollers{10, 200}, 35, Pollers{4, 4}},
		{Pollers{2, 200}, 1000, Pollers{2, 100}},
	} {
		if got := CapPollers(c.p, c.n); got != c.want {
			t.Errorf("CapPollers(%v, %d) = %v, want %v", c.p, c.n, got, c.want)
		}
	}
}

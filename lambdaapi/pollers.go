package lambdaapi

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

// Provisioned mode's numbers for an SQS mapping (Lambda's "Configuring
// scaling behavior for SQS event source mappings" and
// ProvisionedPollerConfig's reference): each event poller runs up to
// InvocationsPerPoller concurrent invocations; MinimumPollers defaults to
// and is at least MinPollers, MaximumPollers defaults to DefaultMaxPollers.
const (
	InvocationsPerPoller = 10
	MinPollers           = 2
	DefaultMaxPollers    = 200
)

// Pollers is a mapping's provisioned mode: its minimum and maximum event
// pollers, each with Lambda's default filled in where the mapping has none.
type Pollers struct {
	Min int32 `json:"minimum_pollers"`
	Max int32 `json:"maximum_pollers"`
}

// pollersOf is c as Pollers; nil when the mapping is not in provisioned
// mode.
func pollersOf(c *types.ProvisionedPollerConfig) *Pollers {
	if c == nil || (c.MinimumPollers == nil && c.MaximumPollers == nil) {
		return nil
	}
	p := &Pollers{Min: MinPollers, Max: DefaultMaxPollers}
	if c.MinimumPollers != nil {
		p.Min = *c.MinimumPollers
	}
	if c.MaximumPollers != nil {
		p.Max = *c.MaximumPollers
	}
	return p
}

// MaxConcurrency is the most concurrent invocations p allows.
func (p Pollers) MaxConcurrency() int32 { return p.Max * InvocationsPerPoller }

// String says p for a person: "provisioned mode, 2-20 pollers (up to 200
// concurrent invocations)".
func (p Pollers) String() string {
	return fmt.Sprintf("provisioned mode, %d-%d pollers (up to %d concurrent invocations)", p.Min, p.Max, p.MaxConcurrency())
}

// CapPollers is the provisioned mode that holds a mapping to about n
// concurrent invocations: MaximumPollers n/10 rounded up, at least
// MinPollers, and MinimumPollers no higher than it.
func CapPollers(p Pollers, n int32) Pollers {
	maxP := max((n+InvocationsPerPoller-1)/InvocationsPerPoller, MinPollers)
	return Pollers{Min: min(p.Min, maxP), Max: maxP}
}

// config is p as the API's ProvisionedPollerConfig.
func (p Pollers) config() *types.ProvisionedPollerConfig {
	return &types.ProvisionedPollerConfig{MinimumPollers: aws.Int32(p.Min), MaximumPollers: aws.Int32(p.Max)}
}

func samePollers(a, b *Pollers) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

package lambdaapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

// Mapping actions of mfdlq contain.
const (
	ActionPause  = "pause"
	ActionCap    = "cap"
	ActionResume = "resume"
)

// MappingState is the part of a mapping contain changes and restores.
type MappingState struct {
	Enabled            bool   `json:"enabled"`
	MaximumConcurrency *int32 `json:"maximum_concurrency"`
	// Pollers is the provisioned mode (nil: the default mode; an older
	// incident's record has none).
	Pollers *Pollers `json:"provisioned_pollers,omitempty"`
}

// String describes the state in a few words.
func (s MappingState) String() string {
	state := "disabled"
	if s.Enabled {
		state = "enabled"
	}
	if s.Pollers != nil {
		return state + ", " + s.Pollers.String()
	}
	if s.MaximumConcurrency == nil {
		return state + ", no concurrency cap"
	}
	return fmt.Sprintf("%s, maximum concurrency %d", state, *s.MaximumConcurrency)
}

// StateOf is the mapping's current MappingState.
func StateOf(m Mapping) MappingState {
	return MappingState{Enabled: m.Enabled(), MaximumConcurrency: m.MaximumConcurrency, Pollers: m.Pollers}
}

// MappingChange is one change contain made (or would make) to a mapping:
// the incident records it so --resume-mapping can put back exactly Before.
type MappingChange struct {
	Action   string       `json:"action"`
	UUID     string       `json:"uuid"`
	Function string       `json:"function"`
	Queue    string       `json:"queue"`
	Before   MappingState `json:"before"`
	After    MappingState `json:"after"`
	DryRun   bool         `json:"dry_run"`
}

// Plan returns the change action makes to m. capTo is the cap for
// ActionCap; restore is the recorded state for ActionResume.
func Plan(action string, m Mapping, capTo int32, restore *MappingState) (MappingChange, error) {
	c := MappingChange{Action: action, UUID: m.UUID, Function: m.Function, Queue: m.Queue, Before: StateOf(m)}
	c.After = c.Before
	switch action {
	case ActionPause:
		c.After.Enabled = false
	case ActionCap:
		if m.Pollers != nil {
			// Provisioned mode: Lambda refuses MaximumConcurrency; the
			// pollers are the cap.
			p := CapPollers(*m.Pollers, capTo)
			c.After.Pollers = &p
			break
		}
		c.After.MaximumConcurrency = aws.Int32(capTo)
	case ActionResume:
		if restore == nil {
			return c, fmt.Errorf("nothing to resume: this incident recorded no pause or cap of mapping %s", m.UUID)
		}
		c.After = *restore
	default:
		return c, fmt.Errorf("unknown mapping action %q", action)
	}
	return c, nil
}

// Apply makes the change in Lambda. Only what differs is sent: Enabled,
// ScalingConfig (an empty one removes the cap, as the Lambda API
// documents), and ProvisionedPollerConfig (a provisioned mapping's cap,
// and what a resume puts back).
func Apply(ctx context.Context, l LambdaAPI, c MappingChange) (Mapping, error) {
	in := &lambda.UpdateEventSourceMappingInput{UUID: aws.String(c.UUID)}
	if c.After.Enabled != c.Before.Enabled {
		in.Enabled = aws.Bool(c.After.Enabled)
	}
	if !sameCap(c.After.MaximumConcurrency, c.Before.MaximumConcurrency) {
		in.ScalingConfig = &types.ScalingConfig{}
		if c.After.MaximumConcurrency != nil {
			in.ScalingConfig.MaximumConcurrency = aws.Int32(*c.After.MaximumConcurrency)
		}
	}
	if c.After.Pollers != nil && !samePollers(c.After.Pollers, c.Before.Pollers) {
		in.ProvisionedPollerConfig = c.After.Pollers.config()
	}
	if in.Enabled == nil && in.ScalingConfig == nil && in.ProvisionedPollerConfig == nil {
		return Mapping{}, nil
	}
	out, err := l.UpdateEventSourceMapping(ctx, in)
	if err != nil {
		return Mapping{}, fmt.Errorf("update event source mapping %s (%s): %w", c.UUID, c.Function, err)
	}
	return fromConfig(types.EventSourceMappingConfiguration{
		UUID: out.UUID, FunctionArn: out.FunctionArn, State: out.State,
		BatchSize: out.BatchSize, ScalingConfig: out.ScalingConfig, ProvisionedPollerConfig: out.ProvisionedPollerConfig,
	}, c.Queue, 0), nil
}

func sameCap(a, b *int32) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// Recorded finds, among the changes earlier contain events recorded
// (oldest first, contain.Changes), the state mapping uuid had before the
// first pause or cap since its last resume: what --resume-mapping
// restores. Pausing and then capping restores the state before the pause,
// not the paused one.
func Recorded(changes []MappingChange, uuid string) (*MappingState, error) {
	var original *MappingState
	for _, c := range changes {
		if c.UUID != uuid || c.DryRun {
			continue
		}
		switch c.Action {
		case ActionResume:
			original = nil
		case ActionPause, ActionCap:
			if original == nil {
				before := c.Before
				original = &before
			}
		}
	}
	return original, nil
}

// Pick chooses the mapping a change applies to: the one named by uuid, or
// the only one there is.
func Pick(ms []Mapping, uuid string) (Mapping, error) {
	if uuid != "" {
		for _, m := range ms {
			if m.UUID == uuid {
				return m, nil
			}
		}
		return Mapping{}, fmt.Errorf("no event source mapping %s reads the source queue", uuid)
	}
	switch len(ms) {
	case 0:
		return Mapping{}, fmt.Errorf("no Lambda event source mapping reads the source queue: nothing to change")
	case 1:
		return ms[0], nil
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.UUID + " (" + m.Function + ")"
	}
	return Mapping{}, fmt.Errorf("%d mappings read the source queue: pass --mapping UUID, one of %s", len(ms), strings.Join(ids, ", "))
}

package inspect

import (
	"fmt"
	"strconv"
	"time"
)

// --long-poll's value, and its old name --wait's (cmdutil.Deps.AliasFlag).

// secondsValue is a whole number of seconds given as a duration ("5s"),
// stored as an int for the API that takes seconds (ReceiveMessage's
// WaitTimeSeconds).
type secondsValue struct{ P *int }

func (v secondsValue) String() string {
	if v.P == nil {
		return ""
	}
	return (time.Duration(*v.P) * time.Second).String()
}

func (v secondsValue) Set(s string) error {
	dur, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if dur%time.Second != 0 {
		return fmt.Errorf("whole seconds only, got %s", s)
	}
	*v.P = int(dur / time.Second)
	return nil
}

func (v secondsValue) Type() string { return "duration" }

// intSeconds is the old spelling of a secondsValue: a bare number.
type intSeconds struct{ P *int }

func (v intSeconds) String() string { return strconv.Itoa(*v.P) }
func (v intSeconds) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return err
	}
	*v.P = int(n)
	return nil
}
func (v intSeconds) Type() string { return "int" }

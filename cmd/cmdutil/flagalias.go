package cmdutil

import (
	"strconv"

	"github.com/spf13/pflag"
)

// Flags renamed so that one name means one thing across the commands
// (--sample was a duration in contain and a count in classify, --from a
// file in classify and logs and a time in changes…). The old names stay,
// hidden, as aliases of the new ones: every script and runbook page that
// uses them keeps working.

// RenamedFlag adds old as a hidden alias of the flag named new, setting
// the same value. Used on a terminal it says the new name (pflag's own
// deprecation notice would go to stdout, which cobra's Print writes to,
// and into every script's output); in a script it is silent.
func (d *Deps) RenamedFlag(f *pflag.FlagSet, old, new string) {
	nf := f.Lookup(new)
	if nf == nil {
		panic("RenamedFlag: no flag --" + new)
	}
	d.AliasFlag(f, old, new, nf.Value)
}

// AliasFlag adds old as a hidden alias of new that parses its value with
// v (the new flag's, or a conversion of the old unit into it).
func (d *Deps) AliasFlag(f *pflag.FlagSet, old, new string, v pflag.Value) {
	f.AddFlag(&pflag.Flag{
		Name:   old,
		Usage:  "renamed --" + new,
		Value:  &aliasValue{Value: v, said: func() { d.sayRenamed(old, new) }},
		Hidden: true,
	})
}

// sayRenamed keeps, for a person at a terminal, that a flag has a new
// name: the root says it once the flags are parsed (SayRenames), when
// --no-color is known.
func (d *Deps) sayRenamed(old, new string) {
	if d.IO.ErrTTY {
		d.renames = append(d.renames, [2]string{old, new})
	}
}

// SayRenames tells the renamed flags the command line used.
func (d *Deps) SayRenames() {
	for _, r := range d.renames {
		d.Warnf("--%s is now --%s (the old name still works)", r[0], r[1])
	}
	d.renames = nil
}

// aliasValue is an old flag name's value: the new flag's, and a word when
// it is set.
type aliasValue struct {
	pflag.Value
	said func()
}

func (a *aliasValue) Set(s string) error {
	if err := a.Value.Set(s); err != nil {
		return err
	}
	a.said()
	return nil
}

// unsetInt is an int flag whose unset value, -1, means "decided from the
// queue": its help states that default in words and never shows the
// sentinel ("(default -1)").
type unsetInt struct{ p *int }

// IntFlagUnset binds name to p, unset (-1) until given.
func IntFlagUnset(f *pflag.FlagSet, p *int, name, usage string) {
	*p = -1
	f.Var(unsetInt{p}, name, usage)
}

func (v unsetInt) String() string {
	if v.p == nil || *v.p < 0 {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v unsetInt) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return err
	}
	*v.p = int(n)
	return nil
}

func (v unsetInt) Type() string { return "int" }

package compositealarms

import (
	"fmt"
	"strings"
	"unicode"
)

// rule is a parsed AlarmRule: ALARM(name), OK(name),
// INSUFFICIENT_DATA(name), TRUE, FALSE, combined with NOT, AND, OR and
// parentheses (NOT binds tightest, then AND, then OR). A name is bare or
// in double quotes, and may be an alarm ARN.
type rule interface {
	eval(state func(name string) string) bool
	names(add func(string))
}

type (
	fnRule    struct{ want, alarm string }
	notRule   struct{ r rule }
	andRule   struct{ a, b rule }
	orRule    struct{ a, b rule }
	constRule bool
)

func (r fnRule) eval(s func(string) string) bool  { return s(r.alarm) == r.want }
func (r notRule) eval(s func(string) string) bool { return !r.r.eval(s) }
func (r andRule) eval(s func(string) string) bool { return r.a.eval(s) && r.b.eval(s) }
func (r orRule) eval(s func(string) string) bool  { return r.a.eval(s) || r.b.eval(s) }
func (r constRule) eval(func(string) string) bool { return bool(r) }

func (r fnRule) names(add func(string))  { add(r.alarm) }
func (r notRule) names(add func(string)) { r.r.names(add) }
func (r andRule) names(add func(string)) { r.a.names(add); r.b.names(add) }
func (r orRule) names(add func(string))  { r.a.names(add); r.b.names(add) }
func (constRule) names(func(string))     {}

type parser struct {
	s   string
	pos int
}

func parseRule(s string) (rule, error) {
	p := &parser{s: s}
	r, err := p.or()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.s) {
		return nil, fmt.Errorf("unexpected %q at %d", p.s[p.pos:], p.pos)
	}
	return r, nil
}

func (p *parser) space() {
	for p.pos < len(p.s) && unicode.IsSpace(rune(p.s[p.pos])) {
		p.pos++
	}
}

// word consumes w (a keyword) if it comes next, followed by a
// non-letter.
func (p *parser) word(w string) bool {
	p.space()
	if !strings.HasPrefix(strings.ToUpper(p.s[p.pos:]), w) {
		return false
	}
	end := p.pos + len(w)
	if end < len(p.s) && (unicode.IsLetter(rune(p.s[end])) || p.s[end] == '_') {
		return false
	}
	p.pos = end
	return true
}

func (p *parser) or() (rule, error) {
	l, err := p.and()
	for err == nil && p.word("OR") {
		var r rule
		if r, err = p.and(); err == nil {
			l = orRule{l, r}
		}
	}
	return l, err
}

func (p *parser) and() (rule, error) {
	l, err := p.not()
	for err == nil && p.word("AND") {
		var r rule
		if r, err = p.not(); err == nil {
			l = andRule{l, r}
		}
	}
	return l, err
}

func (p *parser) not() (rule, error) {
	if p.word("NOT") {
		r, err := p.not()
		return notRule{r}, err
	}
	return p.term()
}

func (p *parser) term() (rule, error) {
	p.space()
	switch {
	case p.pos < len(p.s) && p.s[p.pos] == '(':
		p.pos++
		r, err := p.or()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.s) || p.s[p.pos] != ')' {
			return nil, fmt.Errorf("missing ) at %d", p.pos)
		}
		p.pos++
		return r, nil
	case p.word("TRUE"):
		return constRule(true), nil
	case p.word("FALSE"):
		return constRule(false), nil
	}
	for _, fn := range []string{"INSUFFICIENT_DATA", "ALARM", "OK"} {
		if p.word(fn) {
			name, err := p.argument()
			return fnRule{fn, name}, err
		}
	}
	return nil, fmt.Errorf("expected ALARM(…), OK(…), INSUFFICIENT_DATA(…), TRUE, FALSE, NOT or ( at %d", p.pos)
}

// argument reads (name) or ("name"); an ARN names the alarm after
// ":alarm:".
func (p *parser) argument() (string, error) {
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != '(' {
		return "", fmt.Errorf("expected ( at %d", p.pos)
	}
	p.pos++
	p.space()
	var name string
	if p.pos < len(p.s) && p.s[p.pos] == '"' {
		end := strings.IndexByte(p.s[p.pos+1:], '"')
		if end < 0 {
			return "", fmt.Errorf("unterminated \" at %d", p.pos)
		}
		name = p.s[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
	} else {
		end := strings.IndexByte(p.s[p.pos:], ')')
		if end < 0 {
			return "", fmt.Errorf("missing ) at %d", p.pos)
		}
		name = strings.TrimSpace(p.s[p.pos : p.pos+end])
		p.pos += end
	}
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != ')' {
		return "", fmt.Errorf("missing ) at %d", p.pos)
	}
	p.pos++
	if i := strings.Index(name, ":alarm:"); strings.HasPrefix(name, "arn:") && i >= 0 {
		name = name[i+len(":alarm:"):]
	}
	if name == "" {
		return "", fmt.Errorf("empty alarm name at %d", p.pos)
	}
	return name, nil
}

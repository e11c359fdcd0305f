package transform

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// DefaultMaxBytes is the size a repaired message must fit when the
// destination's own limit is not known: 262,144 bytes, the default of a
// queue's MaximumMessageSize. SendMessage accepts up to 1 MiB (1,048,576
// bytes) since 2025, but only on a queue whose MaximumMessageSize was
// raised, and SNS, EventBridge and Lambda's asynchronous invoke still stop
// at 256 KiB; redrive passes a queue destination's MaximumMessageSize.
const DefaultMaxBytes = 256 << 10

// MaxAttributes is how many message attributes SQS takes on one message.
const MaxAttributes = 10

// Limits is what a repaired message must fit. The zero value is SQS's
// defaults.
type Limits struct {
	// MaxBytes bounds the body plus every attribute's name, type and value,
	// as SQS counts a message's size (DefaultMaxBytes when zero).
	MaxBytes int
}

// Check tells whether SQS would take repaired in place of orig: a body of
// at least one character and only the characters SQS allows, within
// MaxBytes with its attributes, at most ten attributes with valid names,
// types and values, and orig's system attributes — the FIFO group
// (MessageGroupId) and deduplication id — unchanged.
func (l Limits) Check(orig, repaired *sqsjson.Message) error {
	max := l.maxBytes()
	if repaired.Body == "" {
		return errors.New("the repaired body is empty: SQS needs at least one character")
	}
	if bad := badText(repaired.Body); bad != "" {
		return errors.New("the repaired body " + bad)
	}
	if n := len(repaired.MessageAttributes); n > MaxAttributes {
		return fmt.Errorf("the repaired message has %s: SQS takes at most %d", plural.Of(n, "message attribute"), MaxAttributes)
	}
	size := len(repaired.Body)
	for name, a := range repaired.MessageAttributes {
		if err := checkAttribute(name, a); err != nil {
			return err
		}
		size += len(name) + len(a.DataType) + len(a.BinaryValue)
		if a.StringValue != nil {
			size += len(*a.StringValue)
		}
	}
	if size > max {
		return fmt.Errorf("the repaired message is %d bytes with its attributes, over the destination's %d", size, max)
	}
	for _, k := range []string{sqsjson.AttrMessageGroupId, "MessageDeduplicationId"} {
		if orig.Attributes[k] != repaired.Attributes[k] {
			return fmt.Errorf("the repaired message lost its %s", k)
		}
	}
	return nil
}

// maxBytes is MaxBytes, DefaultMaxBytes when zero.
func (l Limits) maxBytes() int {
	if l.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return l.MaxBytes
}

// validName is SQS's rule for an attribute name (but its length): A-Z a-z
// 0-9 _ - and ., no leading, trailing or doubled period — the regexp
// ^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$, matched by hand: Check runs it on
// every attribute of every message a move repairs (TestValidNameAndType
// holds both to the regexps).
func validName(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '-':
		case c == '.' && s[i-1] != '.': // i > 0: s[0] is no period
		default:
			return false
		}
	}
	return true
}

// validType is String, Number or Binary, optionally with a custom suffix
// of no white space — the regexp ^(String|Number|Binary)(\.[^\s]+)?$ (\s
// is [\t\n\f\r ]), matched by hand as validName is.
func validType(s string) bool {
	rest, ok := strings.CutPrefix(s, "String")
	if !ok {
		rest, ok = strings.CutPrefix(s, "Number")
	}
	if !ok {
		rest, ok = strings.CutPrefix(s, "Binary")
	}
	switch {
	case !ok:
		return false
	case rest == "":
		return true
	case rest[0] != '.' || len(rest) == 1:
		return false
	}
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\t', '\n', '\f', '\r', ' ':
			return false
		}
	}
	return true
}

// number is a Number attribute's value: SQS takes up to 38 significant
// digits between 10^-128 and 10^+126 written plainly or with an exponent.
var number = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

func checkAttribute(name string, a sqsjson.MessageAttributeValue) error {
	lower := strings.ToLower(name)
	switch {
	case len(name) > 256 || !validName(name):
		return fmt.Errorf("attribute name %q is not one SQS takes: up to 256 of A-Z a-z 0-9 _ - ., no leading, trailing or doubled period", name)
	case strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon."):
		return fmt.Errorf("attribute name %q: the AWS. and Amazon. prefixes are reserved", name)
	case len(a.DataType) > 256 || !validType(a.DataType):
		return fmt.Errorf("attribute %q: DataType %q is not String, Number or Binary (optionally .custom)", name, a.DataType)
	}
	if strings.HasPrefix(a.DataType, "Binary") {
		if len(a.BinaryValue) == 0 || a.StringValue != nil {
			return fmt.Errorf("attribute %q: a Binary attribute needs a non-empty BinaryValue and no StringValue", name)
		}
		return nil
	}
	if a.StringValue == nil || *a.StringValue == "" || a.BinaryValue != nil {
		return fmt.Errorf("attribute %q: a %s attribute needs a non-empty StringValue", name, a.DataType)
	}
	if strings.HasPrefix(a.DataType, "Number") && (!number.MatchString(*a.StringValue) || digits(*a.StringValue) > 38) {
		return fmt.Errorf("attribute %q: %q is not a number SQS takes (up to 38 digits)", name, *a.StringValue)
	}
	if bad := badText(*a.StringValue); bad != "" {
		return fmt.Errorf("attribute %q %s", name, bad)
	}
	return nil
}

// digits counts the significant digits of a number's mantissa.
func digits(s string) int {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	mant = strings.TrimLeft(strings.TrimLeft(mant, "+-"), "0.")
	return len(strings.ReplaceAll(mant, ".", ""))
}

// badText checks SQS's character set for bodies and string values:
// #x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF, valid UTF-8.
// SendMessage refuses anything else (InvalidMessageContents). It says
// what is wrong ("holds …"), "" when nothing is.
func badText(s string) string {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return fmt.Sprintf("holds invalid UTF-8 at byte %d", i)
		}
		if !(r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) {
			return fmt.Sprintf("holds the character U+%04X at byte %d, which SQS refuses", r, i)
		}
	}
	return ""
}

package classify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// TestProfileBounds: a baseline of ever new field names and values stays
// within maxProfilePaths paths and maxProfileValues values per field, and a
// field past the value cap is no enum.
func TestProfileBounds(t *testing.T) {
	p := newFieldProfile()
	for i := range 2000 {
		p.add([]byte(fmt.Sprintf(`{"f%d":1,"status":"S%c%c","nested":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}}`, i, 'A'+i%26, 'A'+i/26%26)))
	}
	if len(p.fields) != maxProfilePaths || len(p.ids) != maxProfilePaths {
		t.Errorf("%d paths kept, want the cap %d", len(p.fields), maxProfilePaths)
	}
	st := p.fields[p.ids["status"]]
	if !st.notEnum || st.values != nil || st.enumLike() {
		t.Errorf("status with 676 values: notEnum %v, %d values kept", st.notEnum, len(st.values))
	}
	for path := range p.ids {
		if strings.Count(path, ".") >= maxProfileDepth {
			t.Errorf("path %q is deeper than %d levels", path, maxProfileDepth)
		}
	}
}

// TestEnumLike: what counts as an enum member, and as an enum.
func TestEnumLike(t *testing.T) {
	got := map[string]bool{}
	for _, v := range []string{`"PAID"`, `"eu-west-1"`, `"credit_card"`, `"SKU-1234"`, `"2024-03-10"`, `"ord-000123"`, `"ana@example.com"`, `""`, `"1st"`} {
		_, ok := enumText([]byte(v), tString, false)
		got[v] = ok
	}
	want := map[string]bool{`"PAID"`: true, `"eu-west-1"`: true, `"credit_card"`: true, `"SKU-1234"`: false, `"2024-03-10"`: false,
		`"ord-000123"`: false, `"ana@example.com"`: false, `""`: false, `"1st"`: false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("enumText (-want +got):\n%s", diff)
	}
}

// TestBodyErrorFieldsTheBaselineHas: a failureReason the healthy messages
// carry too is business data, not the consumer's error; the rule travels
// in classification.json so GroupOf groups the same way.
func TestBodyErrorFieldsTheBaselineHas(t *testing.T) {
	msgs := readAll(t, "payments-baseline.jsonl")[:30]
	base := &Baseline{}
	*base = *baselineFile(t, "payments-baseline.jsonl", nil)
	base.KeyCounts["failureReason"] = 5
	for i := range msgs {
		msgs[i].Body = strings.TrimSuffix(msgs[i].Body, "}") + fmt.Sprintf(`,"failureReason":"card declined by issuer %d"}`, i)
		msgs[i].Attributes["SentTimestamp"] = "1710108000000"
	}
	run := func(b *Baseline) *Classification {
		c := New(Options{Baseline: b})
		for i := range msgs {
			if err := c.Add(&msgs[i]); err != nil {
				t.Fatal(err)
			}
		}
		return c.Result()
	}
	with := run(base)
	if g := with.Groups[0]; g.SignatureSource != "none" || with.BodyErrors == nil || !cmp.Equal(with.BodyErrors.Skip, []string{"failureReason"}) {
		t.Errorf("with the field in the baseline: source %s, rule %+v", g.SignatureSource, with.BodyErrors)
	}
	without := run(baselineFile(t, "payments-baseline.jsonl", nil))
	if g := without.Groups[0]; g.SignatureSource != "body" || !strings.HasPrefix(g.Error, "card declined") {
		t.Errorf("without: source %s, error %q", g.SignatureSource, g.Error)
	}
	for _, c := range []*Classification{with, without} {
		if g, ok := c.GroupOf(&msgs[0], nil); !ok || g.ID != c.Groups[0].ID {
			t.Errorf("GroupOf = %v, %v", g, ok)
		}
	}
	// An older classification (no body_errors) reads no body field.
	without.BodyErrors = nil
	if _, ok := without.GroupOf(&msgs[0], nil); ok {
		t.Errorf("an older classification should not see the body's error")
	}
	_ = sqsjson.AttrSentTimestamp
}

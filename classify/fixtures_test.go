package classify

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

var updateFixtures = flag.Bool("update", false, "rewrite the fixtures in testdata/classify")

const fixtureDir = "../testdata/classify"

// fixtures are the scenario files in testdata/classify, built by code so
// their timestamps and counts are exactly what the tests claim.
func fixtures() map[string][]byte {
	at := mustTime
	r := rand.New(rand.NewSource(340))
	deploy := spread(r, 340, at("2024-03-10T22:04:00Z"), at("2024-03-10T23:51:00Z"), func(i int) msgSpec {
		return msgSpec{body: order(r, i, 2), receives: 5}
	})
	baseline := spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		return msgSpec{body: order(r, 5000+i, 1), receives: 1}
	})
	outageSpec := func(i int) msgSpec {
		return msgSpec{body: order(r, 7000+i, 1), receives: 4, attrs: map[string]string{
			"ErrorCode": "PaymentGatewayTimeout", "ErrorMessage": "payment gateway did not answer in 3000 ms"}}
	}
	outage := spread(r, 180, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), outageSpec)
	skuSpec := func(i int) msgSpec {
		sku := fmt.Sprintf("SKU-%d", 9000+r.Intn(900))
		return msgSpec{body: order(r, 9000+i, 1), receives: 4, attrs: map[string]string{
			"ErrorCode": "SkuNotFound", "ErrorMessage": "SkuNotFound: " + sku}}
	}
	sku := spread(r, 60, at("2024-03-08T06:00:00Z"), at("2024-03-11T05:00:00Z"), skuSpec)
	truncated := spread(r, 45, at("2024-03-09T00:10:00Z"), at("2024-03-11T00:05:00Z"), func(i int) msgSpec {
		b := order(r, 11000+i, 1)
		return msgSpec{body: b[:len(b)/2+r.Intn(len(b)/3)], receives: 4}
	})
	mixed := append(spread(r, 150, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), outageSpec),
		spread(r, 40, at("2024-03-10T00:00:00Z"), at("2024-03-13T00:00:00Z"), skuSpec)...)
	dupes := spread(r, 24, at("2024-03-12T09:00:00Z"), at("2024-03-12T09:20:00Z"), func(i int) msgSpec {
		// 12 operations (pedido_id), two messages each; messages 4k+2 and
		// 4k+3 carry the same body byte for byte: 6 repeats, 18 bodies.
		body := fmt.Sprintf(`{"pedido_id":"P-%03d","version":1,"attempt":%d}`, i/2, min(i%4, 2))
		return msgSpec{body: body, receives: 3, attrs: map[string]string{"ErrorCode": "StockServiceUnavailable"}}
	})
	missingSent := spread(r, 5, at("2024-03-12T09:00:00Z"), at("2024-03-12T09:05:00Z"), func(i int) msgSpec {
		return msgSpec{body: order(r, i, 1), receives: 2, noSent: i == 2}
	})
	files := map[string][]byte{
		"deploy.jsonl": jsonl(deploy), "deploy-baseline.jsonl": jsonl(baseline),
		"outage.jsonl": jsonl(outage), "sku.json": document(sku), "truncated.jsonl": jsonl(truncated),
		"mixed.jsonl": jsonl(mixed), "dupes.jsonl": jsonl(dupes), "missing-sent.jsonl": jsonl(missingSent),
	}
	// Line 2 of not-json.jsonl is broken; lines 1 and 3 are fine.
	lines := bytes.SplitAfter(jsonl(outage[:2]), []byte("\n"))
	files["not-json.jsonl"] = slices.Concat(lines[0], []byte("{\"MessageId\": \"x\", oops\n"), lines[1])
	maps.Copy(files, envelopeFixtures())
	maps.Copy(files, driftFixtures())
	maps.Copy(files, sourceFixtures())
	maps.Copy(files, realisticFixtures())
	maps.Copy(files, frameworkFixtures())
	return files
}

// msgSpec is one generated message before it gets its id and time.
type msgSpec struct {
	body     string
	receives int
	attrs    map[string]string
	numbers  map[string]string // Number message attributes
	noSent   bool
}

// spread makes n messages sent evenly (with jitter) between from and to,
// the first at from and the last at to.
func spread(r *rand.Rand, n int, from, to time.Time, spec func(i int) msgSpec) []sqsjson.Message {
	out := make([]sqsjson.Message, n)
	step := to.Sub(from) / time.Duration(max(n-1, 1))
	for i := range out {
		s := spec(i)
		sent := from.Add(time.Duration(i) * step)
		switch {
		case i == n-1:
			sent = to
		case i > 0:
			sent = sent.Add(time.Duration(r.Int63n(int64(step/2) + 1)))
		}
		sum := md5.Sum([]byte(s.body))
		m := sqsjson.Message{
			MessageId: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Intn(1<<16), r.Intn(1<<12), r.Intn(1<<12), r.Int63n(1<<48)),
			MD5OfBody: hex.EncodeToString(sum[:]), Body: s.body,
			Attributes: map[string]string{
				"ApproximateReceiveCount":          strconv.Itoa(s.receives),
				"ApproximateFirstReceiveTimestamp": strconv.FormatInt(sent.Add(2*time.Second).UnixMilli(), 10),
				"SenderId":                         "AROAEXAMPLEPRODUCER:orders-api",
			},
		}
		if !s.noSent {
			m.Attributes["SentTimestamp"] = strconv.FormatInt(sent.UnixMilli(), 10)
		}
		for k, v := range s.attrs {
			if m.MessageAttributes == nil {
				m.MessageAttributes = map[string]sqsjson.MessageAttributeValue{}
			}
			m.MessageAttributes[k] = sqsjson.MessageAttributeValue{DataType: "String", StringValue: &v}
		}
		for k, v := range s.numbers {
			if m.MessageAttributes == nil {
				m.MessageAttributes = map[string]sqsjson.MessageAttributeValue{}
			}
			m.MessageAttributes[k] = sqsjson.MessageAttributeValue{DataType: "Number", StringValue: &v}
		}
		out[i] = m
	}
	return out
}

// order is a realistic order body; version 2 adds a currency.
func order(r *rand.Rand, i, version int) string {
	names := []string{"ana", "bruno", "carla", "diego", "elena", "fabio"}
	o := map[string]any{
		"order_id": fmt.Sprintf("ord-%06d", i), "version": version, "customer": names[r.Intn(len(names))],
		"items": []map[string]any{{"sku": fmt.Sprintf("SKU-%d", 1000+r.Intn(500)), "qty": 1 + r.Intn(3)}},
		"total": float64(500+r.Intn(20000)) / 100,
	}
	if version >= 2 {
		o["currency"] = "EUR"
	}
	b, _ := json.Marshal(o)
	return string(b)
}

// mustTime is an RFC 3339 time of a fixture (a typo panics the test).
func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// fixtureSet is a set of scenario files by name, each the JSON Lines of
// its messages.
type fixtureSet map[string][]byte

// put writes the messages of all msgs, in order, as the file name.
func (f fixtureSet) put(name string, msgs ...[]sqsjson.Message) {
	var all []sqsjson.Message
	for _, m := range msgs {
		all = append(all, m...)
	}
	f[name] = jsonl(all)
}

func jsonl(msgs []sqsjson.Message) []byte {
	var buf bytes.Buffer
	w := sqsjson.NewWriter(&buf)
	for i := range msgs {
		_ = w.Write(&msgs[i])
	}
	_ = w.Flush()
	return buf.Bytes()
}

// document is the shape `aws sqs receive-message` prints.
func document(msgs []sqsjson.Message) []byte {
	b, _ := json.MarshalIndent(map[string]any{"Messages": msgs}, "", "    ")
	return append(b, '\n')
}

// TestFixturesUpToDate keeps testdata/classify equal to what fixtures()
// builds; go test ./classify -run TestFixturesUpToDate -update rewrites it.
func TestFixturesUpToDate(t *testing.T) {
	for name, want := range fixtures() {
		path := filepath.Join(fixtureDir, name)
		if *updateFixtures {
			if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./classify -run TestFixturesUpToDate -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what fixtures() builds: run go test ./classify -run TestFixturesUpToDate -update", path)
		}
	}
}

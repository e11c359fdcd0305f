package logsearch

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkSearchFile searches a 200,000-line JSON Lines export for three
// messages, one pass; b.SetBytes gives the throughput.
func BenchmarkSearchFile(b *testing.B) {
	var buf bytes.Buffer
	for i := range 200000 {
		msg := fmt.Sprintf("INFO processed message %08d-1111-4000-8000-000000000000 in %d ms", i, i%97)
		if i == 150000 {
			msg = "ERROR failed " + idA
		}
		fmt.Fprintf(&buf, `{"timestamp":%d,"logStreamName":"s%d","message":%q}`+"\n", 1710108240000+int64(i), i%8, msg)
	}
	data := buf.Bytes()
	ts := targets(idA, idB, idC)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := SearchFile(bytes.NewReader(data), "bench", ts, 20)
		if err != nil || rep.Found != 1 {
			b.Fatalf("found %d, err %v", rep.Found, err)
		}
	}
}

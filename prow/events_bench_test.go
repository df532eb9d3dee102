package prow

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParseEvents parses a ~10 MB e2e-events file of the current
// schema, as openshift-tests writes one per upgrade job.
func BenchmarkParseEvents(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"items":[`)
	for i := 0; buf.Len() < 10<<20; i++ {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, `{"level":"Warning","display":true,"source":"KubeletLog","locator":{"type":"Container","keys":{"namespace":"openshift-apiserver","node":"ip-10-0-%d-%d.us-east-2.compute.internal","pod":"apiserver-7f9c-%05d","container":"openshift-apiserver"}},"message":{"reason":"ReadinessFailed","cause":"","humanMessage":"Get \"https://10.128.%d.%d:8443/healthz\": context deadline exceeded","annotations":{"reason":"ReadinessFailed"}},"from":"2026-11-18T02:12:50.118Z","to":"2026-11-18T02:12:51.118Z"}`,
			i%250, i%200, i, i%250, i%200)
	}
	buf.WriteString("]}")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		n := 0
		if err := ParseEvents(bytes.NewReader(data), func(Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

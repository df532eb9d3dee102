package prow

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// collectEvents parses doc and returns its events and the error.
func collectEvents(doc string) ([]Event, error) {
	var evs []Event
	err := ParseEvents(strings.NewReader(doc), func(e Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, err
}

func TestParseEvents(t *testing.T) {
	at := time.Date(2023, 7, 17, 22, 58, 52, 0, time.UTC)
	tests := []struct {
		name    string
		doc     string
		want    []Event
		wantErr string
	}{
		{"legacy",
			`{"items":[{"level":"Info","locator":"ns/openshift-machine-config-operator node/worker-a","message":"reason/Drain roles/worker Draining node to update config.","from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:58:52Z"}]}`,
			[]Event{{From: at, To: at, Level: "Info", Locator: "ns/openshift-machine-config-operator node/worker-a",
				Message: "reason/Drain roles/worker Draining node to update config.", Reason: "Drain",
				Namespace: "openshift-machine-config-operator", Node: "worker-a"}}, ""},
		{"transitional",
			`{"items":[{"level":"Warning","locator":"ns/a pod/b node/c","message":"constructed/true reason/GracefulDelete duration/30s","tempSource":"PodState",
			  "tempStructuredLocator":{"type":"Pod","keys":{"namespace":"a","pod":"b","node":"c"}},
			  "tempStructuredMessage":{"reason":"GracefulDelete","cause":"","humanMessage":"","annotations":{"constructed":"true"}},
			  "from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:59:22Z"}]}`,
			[]Event{{From: at, To: at.Add(30 * time.Second), Level: "Warning", Source: "PodState", Locator: "ns/a pod/b node/c",
				Message: "constructed/true reason/GracefulDelete duration/30s", Reason: "GracefulDelete", Namespace: "a", Node: "c"}}, ""},
		{"current",
			`{"items":[{"level":"Error","display":true,"source":"Disruption",
			  "locator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
			  "message":{"reason":"DisruptionBegan","cause":"","humanMessage":"kube-api-new-connections stopped responding","annotations":{"reason":"DisruptionBegan"}},
			  "from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:58:54Z"}]}`,
			[]Event{{From: at, To: at.Add(2 * time.Second), Level: "Error", Source: "Disruption",
				Locator: "backend-disruption-name/kube-api-new-connections connection/new disruption/kube-api",
				Message: "kube-api-new-connections stopped responding", Reason: "DisruptionBegan"}}, ""},
		{"current key order and quoted test",
			`[{"locator":{"type":"Container","keys":{"container":"c","uid":"u","pod":"p","node":"n","namespace":"ns1","zeta":"z","e2e-test":"a \"b\""}},
			  "message":{"humanMessage":"h","annotations":{"reason":"FromAnnotation"}}}]`,
			[]Event{{Locator: `ns/ns1 node/n pod/p uid/u container/c e2e-test/"a \"b\"" zeta/z`, Message: "h", Reason: "FromAnnotation", Namespace: "ns1", Node: "n"}}, ""},
		{"bare array, other keys skipped", `{"kind":{"deep":[1,{"x":[]}]},"items":[{"locator":"node/n1","message":"m"}],"after":null}`,
			[]Event{{Locator: "node/n1", Message: "m", Node: "n1"}}, ""},
		{"null items", `{"items":null}`, nil, ""},
		{"empty", `{"items":[]}`, nil, ""},
		{"bad time is zero", `[{"from":"yesterday","to":17,"locator":null,"message":null}]`, []Event{{}}, ""},
		{"no items", `{"kind":"List"}`, nil, "no items array"},
		{"number", `17`, nil, "neither an object nor an array"},
		{"items not array", `{"items":{}}`, nil, "items is not an array"},
		{"malformed item", `{"items":[{"locator":"a"},{"locator":5}]}`, []Event{{Locator: "a"}}, "item 1: locator is neither a string nor an object"},
		{"item not object", `{"items":[{"locator":"a"},{"locator":"b"},[]]}`, []Event{{Locator: "a"}, {Locator: "b"}}, "item 2:"},
		{"truncated", `{"items":[{"locator":"a"},{"locator":"b"`, []Event{{Locator: "a"}}, "item 1:"},
		{"trailing data", `{"items":[]} {}`, nil, "data after the document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := collectEvents(tt.doc)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseEventsCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ParseEvents(strings.NewReader(`[{},{},{}]`), func(Event) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("err %v after %d events, want stop after 2", err, n)
	}
}

// TestParseEventsStreams checks that a large document is read a piece at a
// time: the reader never has to give more than it is asked for.
func TestParseEventsStreams(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := range 20000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"level":"Info","locator":{"type":"Pod","keys":{"namespace":"n","pod":"p"}},"message":{"humanMessage":"hello"},"from":"2026-01-01T00:00:00Z"}`)
	}
	b.WriteString(`]}`)
	n := 0
	err := ParseEvents(iotest.HalfReader(&b), func(e Event) error {
		n++
		if e.Locator != "ns/n pod/p" {
			t.Fatalf("locator %q", e.Locator)
		}
		return nil
	})
	if err != nil || n != 20000 {
		t.Fatalf("%d events, %v", n, err)
	}
}

func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(`{"items":[{"level":"Info","locator":"ns/a node/b","message":"reason/X y","from":"2023-07-17T22:58:52Z"}]}`))
	f.Add([]byte(`[{"locator":{"type":"Pod","keys":{"namespace":"a"}},"message":{"reason":"R","humanMessage":"h"}}]`))
	f.Add([]byte(`{"items":[{"tempStructuredLocator":{"keys":{"node":"n"}},"tempStructuredMessage":{"annotations":{"reason":"r"}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a, c []Event
		errA := ParseEvents(bytes.NewReader(b), func(e Event) error { a = append(a, e); return nil })
		errC := ParseEvents(iotest.OneByteReader(bytes.NewReader(b)), func(e Event) error { c = append(c, e); return nil })
		if (errA == nil) != (errC == nil) || !reflect.DeepEqual(a, c) {
			t.Fatalf("two parses differ: %v / %v", errA, errC)
		}
	})
}

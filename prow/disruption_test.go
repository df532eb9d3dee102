package prow

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseDisruption(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    []Disruption
		wantErr string
	}{
		{"sorted, null messages, key as name",
			`{"BackendDisruptions":{
			  "pod-to-pod-new-connections":{"Name":"pod-to-pod-new-connections","BackendName":"pod-to-pod","ConnectionType":"New","DisruptedDuration":"2s",
			    "DisruptionMessages":["Jan 12 20:58:46.230 - 2s E disruption/pod-to-pod connection/new stopped"],"LoadBalancerType":"","Protocol":"http1","TargetAPI":""},
			  "kube-api-reused-connections":{"BackendName":"kube-api","ConnectionType":"Reused","DisruptedDuration":"0s","DisruptionMessages":null}}}`,
			[]Disruption{
				{Name: "kube-api-reused-connections", Backend: "kube-api", Connection: "Reused"},
				{Name: "pod-to-pod-new-connections", Backend: "pod-to-pod", Connection: "New", Duration: 2 * time.Second,
					Messages: []string{"Jan 12 20:58:46.230 - 2s E disruption/pod-to-pod connection/new stopped"}},
			}, ""},
		{"fractional duration", `{"BackendDisruptions":{"a":{"DisruptedDuration":"1m2.5s"}}}`,
			[]Disruption{{Name: "a", Duration: 62500 * time.Millisecond}}, ""},
		{"no backends", `{}`, []Disruption{}, ""},
		{"bad duration", `{"BackendDisruptions":{"a":{"DisruptedDuration":"2 seconds"}}}`, nil, "a: DisruptedDuration"},
		{"not an object", `[]`, nil, "not a JSON object"},
		{"syntax", `{"BackendDisruptions":`, nil, "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDisruption([]byte(tt.doc))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseDisruption(f *testing.F) {
	f.Add([]byte(`{"BackendDisruptions":{"a":{"Name":"a","BackendName":"b","DisruptedDuration":"1s","DisruptionMessages":["x"]}}}`))
	f.Add([]byte(`{"BackendDisruptions":{"b":{"Name":"a"},"a":{"Name":"a","DisruptedDuration":"2s"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDisruption(b)
		d2, err2 := ParseDisruption(b)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(d, d2) {
			t.Fatalf("two parses differ")
		}
		for i := 1; i < len(d); i++ {
			if d[i-1].Name > d[i].Name {
				t.Fatalf("not sorted: %q before %q", d[i-1].Name, d[i].Name)
			}
		}
	})
}

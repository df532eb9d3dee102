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

func TestParseDisruptionDurations(t *testing.T) {
	// Zero, fractional and missing durations, as origin writes them
	// (metav1.Duration strings), and a bare number of nanoseconds.
	doc := `{"BackendDisruptions":{
	  "kube-api-new-connections":{"Name":"kube-api-new-connections","BackendName":"kube-api","ConnectionType":"New","DisruptedDuration":"0s"},
	  "kube-api-reused-connections":{"Name":"kube-api-reused-connections","BackendName":"kube-api","ConnectionType":"Reused","DisruptedDuration":"1.5s"},
	  "oauth-api-new-connections":{"Name":"oauth-api-new-connections","BackendName":"oauth-api","ConnectionType":"New"},
	  "image-registry-reused-connections":{"Name":"image-registry-reused-connections","DisruptedDuration":"250ms"},
	  "ingress-to-console-new-connections":{"Name":"ingress-to-console-new-connections","DisruptedDuration":2500000000}}}`
	got, err := ParseDisruption([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, backend, conn string
		seconds             float64
		missing             bool
	}
	want := []row{
		{"image-registry-reused-connections", "image-registry", "reused", 0.25, false},
		{"ingress-to-console-new-connections", "ingress-to-console", "new", 2.5, false},
		{"kube-api-new-connections", "kube-api", "new", 0, false},
		{"kube-api-reused-connections", "kube-api", "reused", 1.5, false},
		{"oauth-api-new-connections", "oauth-api", "new", 0, true},
	}
	var rows []row
	for _, d := range got {
		rows = append(rows, row{d.Name, d.BackendName(), d.ConnectionKind(), d.Duration.Seconds(), d.NoDuration})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("got  %+v\nwant %+v", rows, want)
	}
	if _, err := ParseDisruption([]byte(`{"BackendDisruptions":{"a":{"DisruptedDuration":"-1s"}}}`)); err == nil {
		t.Error("a negative duration parsed")
	}
}

func TestDisruptionIntervals(t *testing.T) {
	// The same two outages of kube-api over new connections (2 s, then 3 s
	// of which 1 s overlaps another report of the first) and one recovery
	// of openshift-api, in the three generations of the events files.
	docs := map[string]string{
		"legacy": `{"items":[
		  {"level":"Error","locator":"disruption/kube-api connection/new","message":"reason/DisruptionBegan kube-api-new-connections stopped responding to GET requests over new connections: dial tcp 10.0.0.1:6443: connect: connection refused","from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:58:54Z"},
		  {"level":"Error","locator":"disruption/kube-api connection/new","message":"kube-api-new-connections stopped responding","from":"2023-07-17T22:58:53Z","to":"2023-07-17T22:58:54Z"},
		  {"level":"Error","locator":"disruption/kube-api connection/new","message":"reason/DisruptionBegan stopped responding","from":"2023-07-17T23:00:00Z","to":"2023-07-17T23:00:03Z"},
		  {"level":"Info","locator":"disruption/openshift-api connection/reused","message":"reason/DisruptionEnded openshift-api-reused-connections started responding","from":"2023-07-17T22:00:00Z","to":"2023-07-17T23:00:00Z"},
		  {"level":"Error","locator":"disruption/kube-api connection/new","message":"reason/DisruptionSamplerOutageBegan the sampler lost contact","from":"2023-07-17T23:10:00Z","to":"2023-07-17T23:10:30Z"},
		  {"level":"Warning","locator":"ns/openshift-etcd pod/etcd-0","message":"reason/ProbeError Readiness probe failed","from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:59:52Z"}]}`,
		"transitional": `{"items":[
		  {"level":"Error","tempSource":"Disruption","locator":"backend-disruption-name/kube-api-new-connections connection/new disruption/kube-api","message":"reason/DisruptionBegan stopped responding",
		   "tempStructuredLocator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
		   "tempStructuredMessage":{"reason":"DisruptionBegan","humanMessage":"stopped responding"},"from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:58:54Z"},
		  {"level":"Error","tempSource":"Disruption","locator":"backend-disruption-name/kube-api-new-connections connection/new disruption/kube-api","message":"reason/DisruptionBegan stopped responding","from":"2023-07-17T22:58:53Z","to":"2023-07-17T22:58:54Z"},
		  {"level":"Error","tempSource":"Disruption","locator":"backend-disruption-name/kube-api-new-connections connection/new disruption/kube-api","message":"reason/DisruptionBegan stopped responding","from":"2023-07-17T23:00:00Z","to":"2023-07-17T23:00:03Z"},
		  {"level":"Info","tempSource":"Disruption","locator":"backend-disruption-name/openshift-api-reused-connections connection/reused disruption/openshift-api","message":"reason/DisruptionEnded started responding","from":"2023-07-17T22:00:00Z","to":"2023-07-17T23:00:00Z"},
		  {"level":"Error","tempSource":"KubeEvent","locator":"ns/e2e pod/x disruption/kube-api","message":"reason/DisruptionBegan not a monitor interval","from":"2023-07-17T22:00:00Z","to":"2023-07-17T23:00:00Z"}]}`,
		"current": `{"items":[
		  {"level":"Error","display":true,"source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
		   "message":{"reason":"DisruptionBegan","cause":"","humanMessage":"kube-api-new-connections stopped responding","annotations":{"reason":"DisruptionBegan"}},"from":"2023-07-17T22:58:52Z","to":"2023-07-17T22:58:54Z"},
		  {"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
		   "message":{"reason":"DisruptionBegan","humanMessage":"again"},"from":"2023-07-17T22:58:53Z","to":"2023-07-17T22:58:54Z"},
		  {"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
		   "message":{"reason":"DisruptionBegan","humanMessage":"again"},"from":"2023-07-17T23:00:00Z","to":"2023-07-17T23:00:03Z"},
		  {"level":"Info","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"openshift-api-reused-connections","connection":"reused","disruption":"openshift-api"}},
		   "message":{"reason":"DisruptionEnded","humanMessage":"started responding"},"from":"2023-07-17T22:00:00Z","to":"2023-07-17T23:00:00Z"},
		  {"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
		   "message":{"reason":"DisruptionSamplerOutageBegan","humanMessage":"sampler"},"from":"2023-07-17T23:10:00Z","to":"2023-07-17T23:10:30Z"}]}`,
	}
	type row struct {
		name, backend, conn string
		seconds             float64
	}
	want := []row{{"kube-api-new-connections", "kube-api", "new", 5}, {"openshift-api-reused-connections", "openshift-api", "reused", 0}}
	for gen, doc := range docs {
		t.Run(gen, func(t *testing.T) {
			var di DisruptionIntervals
			if err := ParseEvents(strings.NewReader(doc), func(ev Event) error { di.Add(ev); return nil }); err != nil {
				t.Fatal(err)
			}
			var rows []row
			for _, d := range di.Disruptions() {
				rows = append(rows, row{d.Name, d.BackendName(), d.ConnectionKind(), d.Duration.Seconds()})
			}
			if !reflect.DeepEqual(rows, want) {
				t.Errorf("got  %+v\nwant %+v", rows, want)
			}
		})
	}
}

func TestDisruptionEventFiles(t *testing.T) {
	dir := "artifacts/e2e/openshift-e2e-test/artifacts/junit/"
	tests := []struct {
		names, want []string
	}{
		{[]string{dir + "e2e-timelines_spyglass_20261110-010000.json", dir + "e2e-events_20261110-010000.json", dir + "e2e-events_20261110-030000.json", dir + "e2e-intervals_20261110-010000.json"},
			[]string{dir + "e2e-events_20261110-010000.json", dir + "e2e-events_20261110-030000.json"}},
		{[]string{dir + "e2e-intervals_everything_20220617-124636.json", dir + "e2e-intervals_20220617-124636.json", dir + "e2e-intervals_20220617-124636.html"},
			[]string{dir + "e2e-intervals_20220617-124636.json"}},
		{[]string{dir + "e2e-intervals_everything_20220617-124636.json", dir + "e2e-timelines_everything_20220617-124636.json"},
			[]string{dir + "e2e-intervals_everything_20220617-124636.json"}},
		{[]string{dir + "e2e-timelines_spyglass_20261110-010000.json", dir + "junit_e2e_20261110-010000.xml"}, nil},
	}
	for _, tt := range tests {
		if got := DisruptionEventFiles(tt.names); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DisruptionEventFiles(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

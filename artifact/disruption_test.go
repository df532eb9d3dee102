package artifact

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestRunDisruption reads a run's disruption: from its backend-disruption
// files when it has them (each file a row per backend; a missing duration
// unknown), else from the disruption intervals of its e2e-events files,
// whether a rule reads those files (they are parsed from the scan's bytes)
// or not.
func TestRunDisruption(t *testing.T) {
	dir := "artifacts/e2e/openshift-e2e-test/artifacts/junit/"
	backend := func(n int, kube string) File {
		return Bytes(fmt.Sprintf("%sbackend-disruption_2026112%d-100000.json", dir, n), fmt.Appendf(nil, `{"BackendDisruptions":{
  "kube-api-new-connections":{"Name":"kube-api-new-connections","BackendName":"kube-api","ConnectionType":"New","DisruptedDuration":%q},
  "oauth-api-reused-connections":{"Name":"oauth-api-reused-connections","BackendName":"oauth-api","ConnectionType":"Reused"}}}`, kube))
	}
	events := func(n int, from, to string) File {
		return Bytes(fmt.Sprintf("%se2e-events_2026112%d-100000.json", dir, n), fmt.Appendf(nil, `{"items":[
  {"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"pod-to-pod-new-connections","connection":"new","disruption":"pod-to-pod"}},
   "message":{"reason":"DisruptionBegan","humanMessage":"pod-to-pod-new-connections stopped responding to GET requests over new connections: dial tcp 10.128.2.14:8080: i/o timeout"},"from":%q,"to":%q}]}`, from, to))
	}
	type row struct {
		file, backend, conn, source string
		secs                        float64
	}
	tests := []struct {
		name  string
		files []File
		want  []row
	}{
		{"backend-disruption files, events ignored",
			[]File{backend(0, "1.5s"), backend(1, "0s"), events(0, "2026-11-20T10:50:00Z", "2026-11-20T10:50:09Z")},
			[]row{
				{dir + "backend-disruption_20261120-100000.json", "kube-api-new-connections", "new", prowcrawl.DisruptionFromFile, 1.5},
				{dir + "backend-disruption_20261120-100000.json", "oauth-api-reused-connections", "reused", prowcrawl.DisruptionFromFile, math.NaN()},
				{dir + "backend-disruption_20261121-100000.json", "kube-api-new-connections", "new", prowcrawl.DisruptionFromFile, 0},
				{dir + "backend-disruption_20261121-100000.json", "oauth-api-reused-connections", "reused", prowcrawl.DisruptionFromFile, math.NaN()},
			}},
		{"events files only",
			[]File{events(0, "2026-11-20T10:50:00Z", "2026-11-20T10:50:09Z"), events(1, "2026-11-21T10:50:00Z", "2026-11-21T10:50:02Z")},
			[]row{
				{dir + "e2e-events_20261120-100000.json", "pod-to-pod-new-connections", "new", prowcrawl.DisruptionFromEvents, 9},
				{dir + "e2e-events_20261121-100000.json", "pod-to-pod-new-connections", "new", prowcrawl.DisruptionFromEvents, 2},
			}},
	}
	for _, tt := range tests {
		for _, rules := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, rules %v", tt.name, rules), func(t *testing.T) {
				opts := Options{}
				if rules {
					opts.Rules = builtin
				}
				res, err := Read(t.Context(), Run{Dir: "logs/job/1/", Files: append(meta("FAILURE"), tt.files...)}, opts)
				if err != nil || len(res.Errors) > 0 {
					t.Fatalf("read: %v, %+v", err, res.Errors)
				}
				var got []row
				for _, d := range res.Disruptions {
					got = append(got, row{d.File, d.Backend, d.Connection, d.Source, d.Seconds})
				}
				want := slices.Clone(tt.want)
				for i := range want {
					want[i].file = "logs/job/1/" + want[i].file
				}
				same := len(got) == len(want)
				for i := 0; same && i < len(got); i++ {
					g, w := got[i], want[i]
					same = g.file == w.file && g.backend == w.backend && g.conn == w.conn && g.source == w.source &&
						(g.secs == w.secs || math.IsNaN(g.secs) && math.IsNaN(w.secs))
				}
				if !same {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
				if rules && tt.name == "events files only" {
					// The rule read the same bytes: the pod network symptom,
					// from its first interval to the end of the last.
					i := slices.IndexFunc(res.Symptoms, func(s prowcrawl.RunSymptom) bool { return s.SymptomID == "pod-network-cross-node" })
					if i < 0 {
						t.Fatalf("symptoms %+v, want pod-network-cross-node", res.Symptoms)
					}
					s := res.Symptoms[i]
					if !s.At.Equal(time.Date(2026, 11, 20, 10, 50, 0, 0, time.UTC)) || !s.LastAt.Equal(time.Date(2026, 11, 21, 10, 50, 2, 0, time.UTC)) {
						t.Errorf("pod-network-cross-node from %v to %v", s.At, s.LastAt)
					}
				}
			})
		}
	}
}

// TestDisruptionLongerThanRun: a backend down for longer than its run
// lasted (9999h in a two-hour run, an interval that ends in 2999) is a
// parse problem of its file, and no row: it would drive every percentile
// and verdict of disruption.
func TestDisruptionLongerThanRun(t *testing.T) {
	dir := "artifacts/e2e/openshift-e2e-test/artifacts/junit/"
	for _, tc := range []struct {
		name string
		file File
	}{
		{"backend-disruption file", Bytes(dir+"backend-disruption_20261120-100000.json", []byte(`{"BackendDisruptions":{
  "kube-api-new-connections":{"Name":"kube-api-new-connections","BackendName":"kube-api","ConnectionType":"New","DisruptedDuration":"9999h"},
  "oauth-api-new-connections":{"Name":"oauth-api-new-connections","BackendName":"oauth-api","ConnectionType":"New","DisruptedDuration":"3s"}}}`))},
		{"events file", Bytes(dir+"e2e-events_20261120-100000.json", fmt.Appendf(nil, `{"items":[
  {"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"kube-api-new-connections","connection":"new","disruption":"kube-api"}},
   "message":{"reason":"DisruptionBegan","humanMessage":"kube-api-new-connections stopped responding"},"from":%q,"to":"2999-01-01T00:00:00Z"},
  {"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"oauth-api-new-connections","connection":"new","disruption":"oauth-api"}},
   "message":{"reason":"DisruptionBegan","humanMessage":"oauth-api-new-connections stopped responding"},"from":%q,"to":%q}]}`,
			t0.Add(time.Minute).Format(time.RFC3339), t0.Add(time.Minute).Format(time.RFC3339), t0.Add(time.Minute+3*time.Second).Format(time.RFC3339)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Read(t.Context(), Run{Dir: "logs/job/1/", Files: append(meta("FAILURE"), tc.file)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var backends []string
			for _, d := range res.Disruptions {
				backends = append(backends, fmt.Sprintf("%s %.0f", d.Backend, d.Seconds))
			}
			if !slices.Equal(backends, []string{"oauth-api-new-connections 3"}) {
				t.Errorf("disruption rows %q, want only the 3 s of oauth-api", backends)
			}
			if len(res.Errors) != 1 || res.Errors[0].Kind != "parse" || res.Errors[0].Object != "logs/job/1/"+tc.file.Name() ||
				!strings.Contains(res.Errors[0].Message, "kube-api-new-connections down for") || !strings.Contains(res.Errors[0].Message, "longer than the run") {
				t.Errorf("problems %+v, want one parse problem of the kube-api backend", res.Errors)
			}
		})
	}
}

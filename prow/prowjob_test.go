package prow

import (
	"reflect"
	"testing"
	"time"
)

func TestParseProwJob(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    ProwJob
		wantErr bool
	}{
		{"annotation stands in for spec.job", `{"metadata":{"labels":{"prow.k8s.io/job":"periodic-ci-cut-to-63"},"annotations":{"prow.k8s.io/job":"periodic-ci-full-name"}}}`,
			ProwJob{Job: "periodic-ci-full-name"}, false},
		{"truncated label is never the job", `{"metadata":{"labels":{"prow.k8s.io/job":"periodic-ci-cut-to-63","prow.k8s.io/type":"periodic","prow.k8s.io/build-id":"42"}}}`,
			ProwJob{Type: "periodic", BuildID: "42"}, false},
		{"target in a later container", `{"spec":{"pod_spec":{"containers":[{"args":["--foo"]},{"args":["--target=e2e-gcp-upgrade"]}]}}}`,
			ProwJob{Target: "e2e-gcp-upgrade"}, false},
		{"target as two args", `{"spec":{"pod_spec":{"containers":[{"args":["--target","e2e-aws"]}]}}}`, ProwJob{Target: "e2e-aws"}, false},
		{"bad times are zero", `{"status":{"startTime":"yesterday","completionTime":"2023-09-01T06:21:49+02:00","state":"success"}}`,
			ProwJob{State: "success", CompletionTime: time.Date(2023, 9, 1, 4, 21, 49, 0, time.UTC)}, false},
		{"fields of the wrong type", `{"spec":{"job":["x"],"pod_spec":"none"},"status":{"build_id":1697460066833141760,"state":7}}`,
			ProwJob{BuildID: "1697460066833141760", State: "7"}, false},
		{"array", `[]`, ProwJob{}, true},
		{"invalid", `{"spec":`, ProwJob{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProwJob([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseProwJob(f *testing.F) {
	addSeeds(f, "prowjob*.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		pj, err := ParseProwJob(b)
		pj2, err2 := ParseProwJob(b)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(pj, pj2) {
			t.Fatalf("two parses differ: %+v %v / %+v %v", pj, err, pj2, err2)
		}
		// A broken document gives nothing; a release tag that is no
		// version is dropped with an error, and the rest is kept.
		for _, tag := range []string{pj.Tag, pj.FromTag} {
			if CheckVersion(tag) != nil {
				t.Fatalf("error %v: tag %q kept, which is no version (%+v)", err, tag, pj)
			}
		}
		for _, tm := range []time.Time{pj.StartTime, pj.CompletionTime} {
			if !tm.IsZero() && tm.Location() != time.UTC {
				t.Fatalf("time %v is not UTC", tm)
			}
		}
	})
}

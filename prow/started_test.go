package prow

import (
	"reflect"
	"testing"
)

func TestParseStarted(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Started
		wantErr bool
	}{
		{"pod utils", `{"timestamp":1595277241,"pull":"93264","repos":{"kubernetes/kubernetes":"master:5feab0aa,93264:5dd9241d"},"repo-commit":"30f64c5b1fc57a3beb1476f9beb29280166954d1"}`,
			Started{Timestamp: 1595277241, Pull: "93264", Repos: map[string]string{"kubernetes/kubernetes": "master:5feab0aa,93264:5dd9241d"}, RepoCommit: "30f64c5b1fc57a3beb1476f9beb29280166954d1"}, false},
		{"float timestamp", `{"timestamp":1.6e9}`, Started{Timestamp: 1600000000}, false},
		{"string timestamp", `{"timestamp":" 1600000000 "}`, Started{Timestamp: 1600000000}, false},
		{"numeric pull", `{"timestamp":1,"pull":28214}`, Started{Timestamp: 1, Pull: "28214"}, false},
		{"repos of the wrong type", `{"timestamp":1,"repos":["openshift/origin"]}`, Started{Timestamp: 1}, false},
		{"repo-version that is not a commit", `{"timestamp":1,"repo-version":"v1.11.0-beta.2"}`, Started{Timestamp: 1}, false},
		{"testgrid Pending quirk", `{"timestamp":1,"Pending":false}`, Started{Timestamp: 1}, false},
		{"no timestamp", `{"pull":"1"}`, Started{}, true},
		{"zero timestamp", `{"timestamp":0}`, Started{}, true},
		{"negative timestamp", `{"timestamp":-5}`, Started{}, true},
		{"timestamp out of range", `{"timestamp":1e300}`, Started{}, true},
		{"array", `[{"timestamp":1}]`, Started{}, true},
		{"null", `null`, Started{}, true},
		{"empty", ``, Started{}, true},
		{"truncated", `{"timestamp":1595277241,"pull":`, Started{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStarted([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseStarted(f *testing.F) {
	addSeeds(f, "started*.json")
	f.Add([]byte(`{"timestamp":"12"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStarted(b)
		s2, err2 := ParseStarted(b)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(s, s2) {
			t.Fatalf("two parses differ: %+v %v / %+v %v", s, err, s2, err2)
		}
		if err == nil && s.Timestamp <= 0 {
			t.Fatalf("accepted non-positive timestamp %d", s.Timestamp)
		}
		if err != nil && !reflect.DeepEqual(s, Started{}) {
			t.Fatalf("error %v with a non-zero value %+v", err, s)
		}
	})
}

// addSeeds adds the testdata fixtures matching pattern to a fuzz corpus.
func addSeeds(f *testing.F, pattern string) {
	f.Helper()
	for _, name := range testdataFiles(f, pattern) {
		f.Add(readTestdata(f, name))
	}
}

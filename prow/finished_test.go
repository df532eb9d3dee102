package prow

import (
	"reflect"
	"testing"
)

func TestParseFinished(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		in      string
		want    Finished
		wantErr bool
	}{
		{"sidecar", `{"timestamp":1595279434,"passed":true,"result":"SUCCESS","revision":"5dd9241d"}`,
			Finished{Timestamp: 1595279434, Passed: &yes, Result: "success", Revision: "5dd9241d"}, false},
		{"crier lower case", `{"timestamp":1,"passed":false,"result":"failure"}`, Finished{Timestamp: 1, Passed: &no, Result: "failure"}, false},
		{"aborted", `{"timestamp":1,"passed":false,"result":" ABORTED "}`, Finished{Timestamp: 1, Passed: &no, Result: "aborted"}, false},
		{"error", `{"timestamp":1,"result":"ERROR"}`, Finished{Timestamp: 1, Result: "error"}, false},
		{"passed without result", `{"timestamp":1,"passed":true}`, Finished{Timestamp: 1, Passed: &yes, Result: "success"}, false},
		{"failed without result", `{"timestamp":1,"passed":false}`, Finished{Timestamp: 1, Passed: &no, Result: "failure"}, false},
		{"null passed", `{"timestamp":1,"passed":null}`, Finished{Timestamp: 1}, false},
		{"passed as a string", `{"timestamp":1,"passed":"true"}`, Finished{Timestamp: 1}, false},
		{"metadata of any shape", `{"timestamp":1,"result":"SUCCESS","metadata":{"repos":{"a/b":"master"},"links":[1,2],"x":null}}`, Finished{Timestamp: 1, Result: "success"}, false},
		{"metadata as a string", `{"result":"SUCCESS","metadata":"odd"}`, Finished{Result: "success"}, false},
		{"no fields", `{}`, Finished{}, false},
		{"negative timestamp", `{"timestamp":-1}`, Finished{}, false},
		{"array", `[]`, Finished{}, true},
		{"string", `"SUCCESS"`, Finished{}, true},
		{"invalid", `{"result":}`, Finished{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFinished([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNormalizeResult(t *testing.T) {
	for in, want := range map[string]string{
		"SUCCESS": "success", "FAILURE": "failure", "ABORTED": "aborted", "ERROR": "error",
		"success": "success", " Pending\n": "pending", "": "",
	} {
		if got := NormalizeResult(in); got != want {
			t.Errorf("NormalizeResult(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseFinished(f *testing.F) {
	addSeeds(f, "finished*.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseFinished(b)
		r2, err2 := ParseFinished(b)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(r, r2) {
			t.Fatalf("two parses differ: %+v %v / %+v %v", r, err, r2, err2)
		}
		if r.Result != NormalizeResult(r.Result) {
			t.Fatalf("result %q is not normalized", r.Result)
		}
		if r.Result == "" && r.Passed != nil {
			t.Fatalf("passed is set but result is empty")
		}
	})
}

package prow

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseClusterVersion(t *testing.T) {
	entry := func(state, version string) string {
		return `{"state":"` + state + `","version":"` + version + `","image":"quay.io/x@sha256:1","startedTime":"2023-11-03T14:43:55Z","completionTime":null}`
	}
	cvJSON := func(name string, entries ...string) string {
		return `{"kind":"ClusterVersion","metadata":{"name":"` + name + `"},"status":{"history":[` + strings.Join(entries, ",") + `]}}`
	}
	list := func(items ...string) string {
		return `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",") + `]}`
	}
	tests := []struct {
		name            string
		in              string
		from, to, state string
		historyLen      int
		wantErr         bool
	}{
		{"degraded upgrade (oc's 4.14.1-degraded-cv)", list(cvJSON("version", entry("Partial", "4.14.1"), entry("Completed", "4.14.0-rc.3"))), "4.14.0-rc.3", "4.14.1", "Partial", 2, false},
		{"bare object", cvJSON("version", entry("Completed", "4.14.1"), entry("Completed", "4.13.19")), "4.13.19", "4.14.1", "Completed", 2, false},
		{"fresh install", cvJSON("version", entry("Completed", "4.13.10")), "", "4.13.10", "Completed", 1, false},
		{"install that never finished", cvJSON("version", entry("Partial", "4.13.10")), "", "4.13.10", "Partial", 1, false},
		{"partial entries below are skipped", cvJSON("version", entry("Completed", "4.14.0"), entry("Partial", "4.13.12"), entry("Partial", "4.13.11"), entry("Completed", "4.13.10")), "4.13.10", "4.14.0", "Completed", 4, false},
		{"no completed entry below", cvJSON("version", entry("Partial", "4.14.0"), entry("Partial", "4.13.10")), "", "4.14.0", "Partial", 2, false},
		{"item named version wins", list(cvJSON("other", entry("Completed", "1.0.0")), cvJSON("version", entry("Completed", "4.14.2"))), "", "4.14.2", "Completed", 1, false},
		{"first item otherwise", list(cvJSON("a", entry("Completed", "4.12.1")), cvJSON("b", entry("Completed", "4.12.2"))), "", "4.12.1", "Completed", 1, false},
		{"item without kind", list(`{"status":{"history":[` + entry("Completed", "4.1.0") + `]}}`), "", "4.1.0", "Completed", 1, false},
		{"empty history", `{"kind":"ClusterVersion","status":{}}`, "", "", "", 0, false},
		{"empty list", list(), "", "", "", 0, true},
		{"list of something else", list(`{"kind":"Node","metadata":{"name":"version"}}`), "", "", "", 0, true},
		{"not a ClusterVersion", `{"kind":"Pod"}`, "", "", "", 0, true},
		{"empty object", `{}`, "", "", "", 0, true},
		{"array", `[]`, "", "", "", 0, true},
		{"invalid", `{"items":[`, "", "", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := ParseClusterVersion([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if cv.FromVersion != tt.from || cv.ToVersion != tt.to || cv.State != tt.state || len(cv.History) != tt.historyLen {
				t.Errorf("got from %q to %q state %q history %d, want %q %q %q %d", cv.FromVersion, cv.ToVersion, cv.State, len(cv.History), tt.from, tt.to, tt.state, tt.historyLen)
			}
		})
	}
}

func TestParseClusterVersionTimes(t *testing.T) {
	cv, err := ParseClusterVersion([]byte(`{"kind":"ClusterVersion","status":{"history":[
		{"state":"Partial","version":"4.14.1","startedTime":"2023-11-03T15:28:04Z","completionTime":null},
		{"state":"Completed","version":"4.14.0-rc.3","startedTime":"2023-11-03T14:43:55Z","completionTime":"2023-11-03T15:02:54Z"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Update{
		{State: "Partial", Version: "4.14.1", StartedTime: time.Date(2023, 11, 3, 15, 28, 4, 0, time.UTC)},
		{State: "Completed", Version: "4.14.0-rc.3", StartedTime: time.Date(2023, 11, 3, 14, 43, 55, 0, time.UTC), CompletionTime: time.Date(2023, 11, 3, 15, 2, 54, 0, time.UTC)},
	}
	if !reflect.DeepEqual(cv.History, want) {
		t.Errorf("got %+v, want %+v", cv.History, want)
	}
	if k := UpgradeKind(cv.FromVersion, cv.ToVersion); k != UpgradeMicro {
		t.Errorf("UpgradeKind = %q", k)
	}
}

func FuzzParseClusterVersion(f *testing.F) {
	addSeeds(f, "clusterversion*.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		cv, err := ParseClusterVersion(b)
		cv2, err2 := ParseClusterVersion(b)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(cv, cv2) {
			t.Fatalf("two parses differ")
		}
		if err != nil {
			return
		}
		if len(cv.History) == 0 {
			if cv.ToVersion != "" || cv.FromVersion != "" || cv.State != "" {
				t.Fatalf("versions without history: %+v", cv)
			}
			return
		}
		if cv.ToVersion != cv.History[0].Version || cv.State != cv.History[0].State {
			t.Fatalf("to/state not from history[0]: %+v", cv)
		}
		if cv.FromVersion != "" && !slices.ContainsFunc(cv.History[1:], func(u Update) bool {
			return u.State == UpdateCompleted && u.Version == cv.FromVersion
		}) {
			t.Fatalf("from version %q is no completed entry below history[0]", cv.FromVersion)
		}
	})
}

package artifact

import (
	"strings"
	"testing"
)

// TestHostileVersions: a version or payload tag that is not one (a newline
// that would add a key to a blocked-edges draft, an escape sequence) is a
// parse problem of the run, and never stored.
func TestHostileVersions(t *testing.T) {
	cv := Bytes("artifacts/e2e/gather-extra/artifacts/clusterversion.json", []byte(`{"kind":"ClusterVersion","metadata":{"name":"version"},
"status":{"history":[{"state":"Completed","version":"4.14.1\nfixedIn: 4.14.1","startedTime":"2026-11-20T10:30:00Z","completionTime":"2026-11-20T11:00:00Z"},
{"state":"Completed","version":"4.14.0","startedTime":"2026-11-20T10:00:00Z","completionTime":"2026-11-20T10:20:00Z"}]}}`))
	pj := Bytes("prowjob.json", []byte(`{"kind":"ProwJob","metadata":{"annotations":{"release.openshift.io/tag":"4.14.1\u001b]52;c;aGk=\u0007","release.openshift.io/from-tag":"4.14.0"},
"labels":{"prow.k8s.io/type":"periodic"}},"spec":{"type":"periodic","job":"periodic-ci-x-4.14-e2e-aws-upgrade"},"status":{"state":"failure"}}`))
	res, err := Read(t.Context(), Run{Dir: "logs/job/1/", Files: append(meta("FAILURE"), pj, cv)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Run
	if r.ToVersion != "" || r.FromVersion != "" || r.Tag != "" || r.FromTag != "4.14.0" {
		t.Errorf("stored versions %q %q, tags %q %q; want none from the bad files but the good from-tag", r.FromVersion, r.ToVersion, r.FromTag, r.Tag)
	}
	objects := map[string]bool{}
	for _, e := range res.Errors {
		if e.Kind != "parse" || !strings.Contains(e.Message, "not a version") || strings.ContainsAny(e.Message, "\n\x1b\x07") {
			t.Errorf("problem %+v: want a parse problem saying it is not a version, without the raw bytes", e)
		}
		objects[e.Object] = true
	}
	if !objects["logs/job/1/prowjob.json"] || !objects["logs/job/1/artifacts/e2e/gather-extra/artifacts/clusterversion.json"] {
		t.Errorf("problems %+v, want one on each file", res.Errors)
	}
}

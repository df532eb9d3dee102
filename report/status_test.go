package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// TestStatusUnreadRuns: a run that could not be read at all has no start
// and no result: status counts it as unread, never as pending, shows "-"
// for its date, and its hint names the database as given, quoted for a
// shell.
func TestStatusUnreadRuns(t *testing.T) {
	s := analyze.Status{
		DB: "/tmp/my dbs/prow crawl.db",
		Jobs: []db.JobStatus{{Job: "periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade", Release: "4.14", FromRelease: "4.14", Upgrade: "micro",
			Runs: 3, Success: 2, Unread: 1, Newest: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)}},
		Problems: db.ProblemCounts{Unreadable: 25},
		ProblemRuns: []db.RunProblem{{Job: "periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade", BuildID: 2125900000000000009,
			FetchStatus: "error", FetchError: "started.json: backend error", FetchAttempts: 1}},
	}
	var b bytes.Buffer
	if err := WriteStatus(&b, s, Options{Wide: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"PENDING  UNREAD", "2        0        0        0      0        1", "-        periodic-ci", "sqlite3 '/tmp/my dbs/prow crawl.db' 'select"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0001-01-01") || strings.Contains(out, "sqlite3 DB") {
		t.Errorf("status shows a zero date or a placeholder:\n%s", out)
	}
}

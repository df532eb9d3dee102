package crawler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestLookbackSequentialIDs: the first crawl of an old job whose build ids
// are sequential numbers reads the runs of --lookback, not its history.
func TestLookbackSequentialIDs(t *testing.T) {
	const job = "release-openshift-origin-installer-e2e-aws-upgrade"
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	files := map[string]string{"logs/" + job + "/latest-build.txt": "14299"}
	for i := range 300 { // one run a day, the newest yesterday
		id := 14000 + i
		start := now.Add(-time.Duration(300-i) * 24 * time.Hour)
		dir := fmt.Sprintf("logs/%s/%d/", job, id)
		files[dir+"started.json"] = started(start)
		files[dir+"finished.json"] = fmt.Sprintf(`{"timestamp":%d,"passed":false,"result":"FAILURE"}`, start.Add(2*time.Hour).Unix())
	}
	// A run that never wrote started.json, in the old part.
	delete(files, fmt.Sprintf("logs/%s/%d/started.json", job, 14100))
	src, err := mirror.New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	counted := newBrokenSource(src)
	d := openDB(t)
	cfg := Config{Lookback: 14 * 24 * time.Hour, Now: func() time.Time { return now }}
	sum, err := New(counted, d, cfg).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 14 {
		t.Errorf("stored %d runs, want the 14 of the last 14 days", sum.New)
	}
	if got := query(t, d, `SELECT min(build_id), max(build_id) FROM runs`); got[0] != "14286|14299" {
		t.Errorf("runs stored %v, want 14286 to 14299", got)
	}
	counted.mu.Lock()
	var startedReads int
	for name, n := range counted.opened {
		if strings.HasSuffix(name, "/started.json") {
			startedReads += n
		}
	}
	counted.mu.Unlock()
	// A search of 300 ids reads 9 started.json, then the 14 runs and a
	// margin of 3 below them are read.
	if startedReads > 30 {
		t.Errorf("read %d started.json files of a 300-run history, want about 26", startedReads)
	}
	t.Logf("%d started.json read, %d objects in all", startedReads, sum.Objects)

	// The next crawl continues from its cursor.
	sum, err = New(counted, d, cfg).Run(t.Context())
	if err != nil || sum.New != 0 || sum.Updated != 0 {
		t.Errorf("second crawl: %+v, %v", sum, err)
	}
}

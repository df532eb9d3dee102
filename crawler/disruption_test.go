package crawler

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSampleDisruptions crawls the sample bucket and checks run_disruptions
// against the backend-disruption files themselves, read here with
// encoding/json alone: per run and backend, the sum of its files' entries.
func TestSampleDisruptions(t *testing.T) {
	d, _ := sampleCrawl(t)
	got := query(t, d, `SELECT d.job || '/' || d.build_id || '|' || d.backend || '|' || printf('%.3f', sum(d.disrupted_s)) || '|' || count(*)
FROM run_disruptions d GROUP BY d.job, d.build_id, d.backend ORDER BY 1`)

	// The runs the crawl reads whole: finished runs of the upgrade jobs.
	runs := map[string]string{} // run directory -> "job/build"
	for _, r := range readManifest(t) {
		if upgradeJobs[0].MatchString(r.Job) && r.Result != "pending" {
			runs[r.Path+"/"] = r.Job + "/" + r.BuildID
		}
	}
	type key struct{ run, backend string }
	sums := map[key]float64{}
	files := map[key]int{}
	err := filepath.WalkDir(sampleDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasPrefix(e.Name(), "backend-disruption") || !strings.HasSuffix(e.Name(), ".json") {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, sampleDir+string(filepath.Separator)))
		run := ""
		for dir, r := range runs {
			if strings.HasPrefix(rel, dir) {
				run = r
			}
		}
		if run == "" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc struct {
			BackendDisruptions map[string]struct {
				Name              string
				DisruptedDuration string
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for k, e := range doc.BackendDisruptions {
			name := e.Name
			if name == "" {
				name = k
			}
			dur, err := time.ParseDuration(e.DisruptedDuration)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", rel, name, err)
			}
			sums[key{run, name}] += dur.Seconds()
			files[key{run, name}]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	nonzero := 0
	for k, s := range sums {
		want = append(want, fmt.Sprintf("%s|%s|%.3f|%d", k.run, k.backend, s, files[k]))
		if s > 0 {
			nonzero++
		}
	}
	slices.Sort(want)
	if len(want) == 0 || nonzero == 0 {
		t.Fatalf("the sample holds %d backend entries, %d disrupted: the test reads nothing", len(want), nonzero)
	}
	if !slices.Equal(got, want) {
		t.Errorf("run_disruptions (%d rows) differ from the files (%d):\n got %q\nwant %q", len(got), len(want), got, want)
	}
	// Every row came from a backend-disruption file (every run of the
	// sample that has events files also has one).
	if src := query(t, d, `SELECT DISTINCT source FROM run_disruptions`); !slices.Equal(src, []string{"backend-disruption"}) {
		t.Errorf("sources %q", src)
	}
}

package classify

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

var update = flag.Bool("update", false, "rewrite the want.json files of testdata/golden")

// contractIDs are the built-in symptom ids DESIGN.md promises.
var contractIDs = []string{
	"api-unavailable-during-upgrade",
	"cni-default-network-missing",
	"etcd-connection-refused",
	"etcd-transport-closing",
	"pod-network-cross-node",
	"sdn-rollout-readiness-loss",
	"upgrade-incomplete",
}

func TestBuiltinRules(t *testing.T) {
	rules, err := ParseRules("builtin.yaml", BuiltinYAML())
	if err != nil {
		t.Fatalf("parse the built-in rules: %v", err)
	}
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.ID)
		if strings.TrimSpace(r.Title) == "" {
			t.Errorf("%s: no title", r.ID)
		}
		if strings.TrimSpace(r.Description) == "" {
			t.Errorf("%s: no description", r.ID)
		}
		if len(r.Files) == 0 {
			t.Errorf("%s: no files", r.ID)
		}
		if r.Bug != "" && !strings.HasPrefix(r.Bug, "https://") {
			t.Errorf("%s: bug %q is not an https URL", r.ID, r.Bug)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, contractIDs) {
		t.Errorf("built-in ids = %q, want exactly %q", ids, contractIDs)
	}
	// Builtin is the parsed file with the source named "builtin".
	for i := range rules {
		rules[i].Source = BuiltinSource
	}
	if !reflect.DeepEqual(rules, Builtin()) {
		t.Error("ParseRules(BuiltinYAML()) differs from Builtin()")
	}
	if _, err := NewEngine(Builtin()); err != nil {
		t.Errorf("NewEngine(Builtin()): %v", err)
	}
}

// goldenRun is a case's run.json: what the crawler knows about the run
// besides its files.
type goldenRun struct {
	Start        time.Time    `json:"start"`
	UpgradeState string       `json:"upgrade_state"`
	Tests        []goldenTest `json:"tests"`
}

type goldenTest struct {
	Suite    string  `json:"suite"`
	Name     string  `json:"name"`
	Status   string  `json:"status"`
	Duration float64 `json:"duration,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// goldenMatch is one entry of a case's want.json.
type goldenMatch struct {
	Symptom string `json:"symptom"`
	Hits    int    `json:"hits"`
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Excerpt string `json:"excerpt,omitempty"`
	At      string `json:"at,omitempty"`
}

// TestGolden runs the built-in rules on every run directory of
// testdata/golden/<symptom>/<case>/ and compares the matches with the case's
// want.json (rewritten with -update). Whatever want.json says, a pos-* case
// of a symptom must show it and a neg-* case must not.
func TestGolden(t *testing.T) {
	e, err := NewEngine(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", "golden")
	symptoms, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string][2]int{} // symptom -> positives, negatives
	for _, sd := range symptoms {
		if !sd.IsDir() {
			continue
		}
		symptom := sd.Name()
		if !slices.Contains(contractIDs, symptom) {
			t.Errorf("testdata/golden/%s: not a built-in symptom", symptom)
		}
		cases, err := os.ReadDir(filepath.Join(root, symptom))
		if err != nil {
			t.Fatal(err)
		}
		for _, cd := range cases {
			name := cd.Name()
			var positive bool
			switch {
			case strings.HasPrefix(name, "pos-"):
				positive = true
			case strings.HasPrefix(name, "neg-"):
			default:
				t.Errorf("%s/%s: a case name starts with pos- or neg-", symptom, name)
				continue
			}
			c := counts[symptom]
			if positive {
				c[0]++
			} else {
				c[1]++
			}
			counts[symptom] = c
			t.Run(symptom+"/"+name, func(t *testing.T) {
				dir := filepath.Join(root, symptom, name)
				got := runGolden(t, e, dir)
				found := slices.ContainsFunc(got, func(m goldenMatch) bool { return m.Symptom == symptom })
				if positive && !found {
					t.Errorf("a positive case of %s: no %s match in %s", symptom, symptom, summary(got))
				}
				if !positive && found {
					t.Errorf("a near-miss of %s matched it: %s", symptom, summary(got))
				}
				compareGolden(t, filepath.Join(dir, "want.json"), got)
			})
		}
	}
	for _, id := range contractIDs {
		if c := counts[id]; c[0] < 4 || c[1] < 3 {
			t.Errorf("testdata/golden/%s has %d positive and %d negative cases; want at least 4 and 3", id, c[0], c[1])
		}
	}
}

// runGolden classifies one case directory the way a crawl would: the files
// the rules want, in sorted path order, with the run's facts from run.json.
func runGolden(t *testing.T, e *Engine, dir string) []goldenMatch {
	t.Helper()
	var info RunInfo
	if b, err := os.ReadFile(filepath.Join(dir, "run.json")); err == nil {
		var r goldenRun
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("run.json: %v", err)
		}
		info.Start, info.UpgradeState = r.Start, r.UpgradeState
		for _, x := range r.Tests {
			info.Tests = append(info.Tests, prow.TestResult{Suite: x.Suite, Name: x.Name, Status: prow.TestStatus(x.Status), Duration: x.Duration, Message: x.Message})
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if rel != "run.json" && rel != "want.json" {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	s := e.Begin(info)
	for _, rel := range files {
		if !e.Wants(rel) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		err = s.File(t.Context(), rel, f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
	}
	got := []goldenMatch{}
	for _, m := range s.Matches() {
		g := goldenMatch{Symptom: m.Symptom, Hits: m.Hits, File: m.File, Line: m.Line, Excerpt: m.Excerpt}
		if !m.At.IsZero() {
			g.At = m.At.UTC().Format(time.RFC3339Nano)
		}
		got = append(got, g)
	}
	return got
}

func compareGolden(t *testing.T, wantFile string, got []goldenMatch) {
	t.Helper()
	// Excerpts hold log text: keep "&", "<" and ">" as they are.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if *update {
		if err := os.WriteFile(wantFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(wantFile)
	if err != nil {
		t.Fatalf("%v (run go test ./classify -run TestGolden -update to write it)", err)
	}
	if !bytes.Equal(want, b) {
		t.Errorf("matches differ from %s (-update rewrites it)\ngot:\n%s\nwant:\n%s", path.Base(filepath.Dir(wantFile))+"/want.json", b, want)
	}
}

func summary(ms []goldenMatch) string {
	if len(ms) == 0 {
		return "no matches"
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.Symptom)
	}
	return "matches " + strings.Join(ids, ", ")
}

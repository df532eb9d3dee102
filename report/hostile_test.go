package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/safe"
	"github.com/openshift-eng/prowcrawl/prow"
	"github.com/openshift-eng/prowcrawl/search"
	"github.com/openshift-eng/prowcrawl/suggest"
)

// hostile is text from a bucket as an attacker writes it: an OSC 52 that
// sets the clipboard, a clear of the screen, a C1 CSI, a right-to-left
// override, a line break and a tab that forge a row, a "|" that splits a
// Markdown cell and a ")" that closes a link for the attacker's to follow.
const hostile = "\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\u202e\r\nforged\t| row |)[x](https://evil.example)"

// hostileJob is a job name with it, beginning as a spreadsheet formula.
const hostileJob = "=HYPERLINK(1)-" + hostile + "-upgrade"

// hostileVersion is a target version that would climb out of
// blocked-edges/ as a file name and start a YAML key on a line of its own.
const hostileVersion = "4.14.0/../../../etc/" + hostile + "\nfrom: .*"

// openHostile writes runs of a job named hostileJob into a new database,
// as a crawl writes them (db.Write), with hostile object names, evidence,
// test names and messages, a hostile target version and disruption
// backend, and analyses them: pod-network-cross-node is a regression on
// 4.13->4.14 minor, whose first run is the hostile job's.
func openHostile(t *testing.T) *db.DB {
	t.Helper()
	d, err := db.Open(t.Context(), t.TempDir()+"/hostile.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.SyncSymptoms(t.Context(), fixtureSymptoms); err != nil {
		t.Fatal(err)
	}
	day := func(n int) time.Time { return fixtureNow.AddDate(0, 0, -n) }
	var f fixture
	f.build = 1_990_000_000_000_000_000
	f.runs(fixtureJob("4.12", "4.13", "minor", "aws", "ovn"), 14, day(42), day(1), nil)
	bad := fixtureJob("4.13", "4.14", "minor", "aws", "ovn")
	bad.Name = hostileJob
	first := len(f.recs)
	f.runs(bad, 14, day(35), day(1), map[string][]int{"pod-network-cross-node": {6, 8, 9, 11, 12, 13}}, 9)
	for i := first; i < len(f.recs); i++ {
		r := &f.recs[i]
		r.Run.ToVersion = hostileVersion
		for j := range r.Symptoms {
			r.Symptoms[j].File = r.Run.Path + "/artifacts/" + hostile + "/build-log.txt"
			r.Symptoms[j].Excerpt = "error: " + hostile
		}
		for j := range r.Disruptions {
			r.Disruptions[j].Backend += hostile
		}
		if len(r.Symptoms) > 0 {
			r.Tests = []prowcrawl.Test{{Suite: "openshift-tests", Name: "[sig-network] " + hostile, Status: "fail", Message: hostile}}
		}
		r.Errors = []prowcrawl.RunError{{Object: r.Run.Path + "/" + hostile, Kind: prowcrawl.ErrorParse, Message: "parse: " + hostile}}
	}
	if err := d.Write(t.Context(), f.recs, nil); err != nil {
		t.Fatal(err)
	}
	opts := analyze.DefaultOptions()
	opts.Now, opts.AnalysedAt = fixtureNow, fixtureNow
	if _, err := analyze.Run(t.Context(), d, opts); err != nil {
		t.Fatal(err)
	}
	return d
}

// checkLines fails unless every line of out is one safe line (what
// safe.Line leaves as it is: no control character, no bidirectional
// override, valid UTF-8) and none was forged by a line break in the
// hostile text.
func checkLines(t *testing.T, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if safe.Line(line) != line {
			t.Errorf("line %d is not one safe line: %q", i+1, line)
		}
		if strings.HasPrefix(strings.TrimLeft(line, " \t|-#"), "forged") {
			t.Errorf("line %d was forged by a line break from the bucket: %q", i+1, line)
		}
	}
}

// checkShown fails unless out holds the hostile text, shown as escapes:
// nothing is dropped silently.
func checkShown(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, `x1b`) || !strings.Contains(out, `52;c;aGk=`) || !strings.Contains(out, `u202e`) {
		t.Errorf("the hostile text is not shown as escapes:\n%s", out)
	}
}

// codeSpan is inline code, in which Markdown reads no link.
var codeSpan = regexp.MustCompile("`[^`]*`")

// checkMarkdown also fails when the hostile text opens a link of its own
// or ends a run's link early.
func checkMarkdown(t *testing.T, out string) {
	t.Helper()
	checkLines(t, out)
	if strings.Contains(codeSpan.ReplaceAllString(out, "``"), "[x](") {
		t.Errorf("the hostile text makes a link:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		// A link's target holds no "(", ")", "[" or "]" of the job name:
		// they are percent-encoded.
		for rest := line; ; {
			i := strings.Index(rest, "](https://prow.ci.openshift.org/")
			if i < 0 {
				break
			}
			target := rest[i+2:]
			end := strings.IndexByte(target, ')')
			if end < 0 || strings.ContainsAny(target[:end], "([] ") || !strings.Contains(target[:end], "%29%5Bx%5D%28") {
				t.Errorf("a link's target is cut or not percent-encoded: %q", line)
				break
			}
			rest = target[end:]
		}
	}
}

// TestHostileReport renders a database of hostile names and lines in
// every format of report, report --assess and report --changes: no escape
// sequence, no line break and no link of the bucket's reaches the output,
// and a CSV cell that a spreadsheet would read as a formula is text.
func TestHostileReport(t *testing.T) {
	d := openHostile(t)
	for _, by := range []string{db.ScopeEdge, db.ScopeJob, db.ScopeVariant} {
		table := load(t, d, analyze.TableQuery{By: by, Selection: analyze.Selection{Options: minRuns(1)}})
		t.Run(by, func(t *testing.T) {
			for _, format := range []string{FormatTable, FormatMarkdown, FormatCSV, "narrow"} {
				var b bytes.Buffer
				// The wide table shows every name whole; the narrow one may
				// cut a name (once made safe) in the middle.
				opts := Options{Wide: true}
				if format == "narrow" {
					format, opts = FormatTable, Options{Width: 80}
				}
				if err := Write(&b, table, format, opts); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				switch {
				case !opts.Wide:
					checkLines(t, out)
					continue
				case format == FormatTable:
					checkLines(t, out)
				case format == FormatMarkdown:
					checkMarkdown(t, out)
				case format == FormatCSV:
					checkCSV(t, out)
				}
				if by == db.ScopeJob && format != FormatCSV {
					checkShown(t, out)
				}
			}
		})
	}

	in, err := analyze.LoadSymptom(t.Context(), d, "pod-network-cross-node", analyze.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	a := assess.Assess(in)
	for _, format := range []string{FormatTable, FormatMarkdown, FormatBlockedEdges} {
		t.Run("assess "+format, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteAssessment(&b, a, format); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			switch format {
			case FormatMarkdown:
				checkMarkdown(t, out)
			case FormatBlockedEdges:
				checkBlockedEdges(t, out)
			default:
				checkLines(t, out)
			}
			checkShown(t, out)
		})
	}

	c, err := d.RegressionChanges(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Opened) == 0 {
		t.Fatal("the hostile fixture opens no regression")
	}
	for _, format := range []string{FormatTable, FormatMarkdown} {
		t.Run("changes "+format, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteChanges(&b, c, format, fixtureNow); err != nil {
				t.Fatal(err)
			}
			if format == FormatMarkdown {
				checkMarkdown(t, b.String())
			} else {
				checkLines(t, b.String())
			}
		})
	}

	t.Run("status", func(t *testing.T) {
		s, err := analyze.LoadStatus(t.Context(), d, 10)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteStatus(&b, s, Options{Wide: true}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		checkLines(t, out)
		checkShown(t, out)
		if !strings.Contains(out, "Runs with problems") {
			t.Errorf("status lists no run with problems:\n%s", out)
		}
	})

	t.Run("html", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteHTML(&b, load(t, d, analyze.TableQuery{Trend: true})); err != nil {
			t.Fatal(err)
		}
		// html/template escapes a link's target for its attribute: the
		// job name's quote, space and control characters cannot end it.
		hrefs := regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(b.String(), -1)
		hostileLinks := 0
		for _, h := range hrefs {
			if strings.Contains(h[1], "HYPERLINK") {
				hostileLinks++
			}
			if safe.Line(h[1]) != h[1] || strings.ContainsAny(h[1], " <>|") || strings.HasPrefix(h[1], "https://evil.example") {
				t.Errorf("a link's target is not escaped: %q", h[1])
			}
		}
		if hostileLinks == 0 {
			t.Errorf("the page links no run of the hostile job")
		}
	})
}

// checkCSV fails unless every cell is one safe line and every cell that
// begins as a formula ("=", "+", "-", "@") is a number.
func checkCSV(t *testing.T, out string) {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	neutralised := false
	for _, rec := range records {
		for _, cell := range rec {
			if safe.Line(cell) != cell {
				t.Errorf("cell %q is not one safe line", cell)
			}
			if cell != "" && strings.IndexByte("=+-@", cell[0]) >= 0 {
				if _, err := strconv.ParseFloat(cell, 64); err != nil {
					t.Errorf("cell %q is a formula", cell)
				}
			}
			neutralised = neutralised || strings.HasPrefix(cell, "'=HYPERLINK(1)")
		}
	}
	if !neutralised && strings.Contains(out, "HYPERLINK") {
		t.Errorf("the job name is not kept as text:\n%s", out)
	}
}

// checkBlockedEdges fails unless every line is one safe line, the draft
// has the keys of a blocked-edges file and no other, and the file name it
// suggests is one file in blocked-edges/.
func checkBlockedEdges(t *testing.T, out string) {
	t.Helper()
	checkLines(t, out)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "from: .*") {
			t.Errorf("the target version forged a key: %q", line)
		}
		name, ok := strings.CutPrefix(line, "# blocked-edges/")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, ", for ")
		file := "blocked-edges/" + name
		if path.Dir(file) != "blocked-edges" || path.Clean(file) != file || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".yaml") {
			t.Errorf("suggested file name %q is not one file in blocked-edges/", file)
		}
		return
	}
	t.Errorf("the draft names no file:\n%s", out)
}

// TestBlockedEdgeFile: the file name of a draft is made of safe parts,
// whatever the target version and the name hold.
func TestBlockedEdgeFile(t *testing.T) {
	for _, tc := range []struct{ to, name, want string }{
		{"4.14.3", "PodNetworkCrossNode", "blocked-edges/4.14.3-PodNetworkCrossNode.yaml"},
		{"../../etc/passwd", "X", "blocked-edges/_._.._etc_passwd-X.yaml"},
		{"4.14.0/x", "A/../B", "blocked-edges/4.14.0_x-A_.._B.yaml"},
		{"4.14.0\x1b[2J\n", "", "blocked-edges/4.14.0__2J_-_.yaml"},
		{".hidden", "Ré\u202e", "blocked-edges/_hidden-R_____.yaml"},
	} {
		if got := (assess.BlockedEdge{To: tc.to, Name: tc.name}).File(); got != tc.want {
			t.Errorf("File of to %q, name %q = %q, want %q", tc.to, tc.name, got, tc.want)
		}
	}
}

// TestHostileSearchClassify: a matched log line, an object's and a job's
// name in search's table, classify's evidence and its problems are each
// one safe line.
func TestHostileSearchClassify(t *testing.T) {
	p := "logs/" + hostileJob + "/1"
	r := search.Result{Pattern: "error", Searched: 1, Files: 1, Bytes: 100, Runs: []search.Run{{
		StoredRun: db.StoredRun{Job: hostileJob, BuildID: 1, Path: p, URL: "https://prow.ci.openshift.org/view/gs/b/" + p, Result: "failure" + hostile},
		Matches:   3, Lines: []search.Line{{File: p + "/artifacts/" + hostile + ".log", Line: 7, Text: "error: " + hostile}},
	}}, Groups: []search.Group{{Job: hostileJob, Edge: "4.13->4.14 minor" + hostile, Runs: 1, Hits: 1, Failed: 1, FailedHits: 1, P: 1}}}
	var b bytes.Buffer
	if err := WriteSearch(&b, r, "table", Options{Wide: true}); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String())
	checkShown(t, b.String())

	b.Reset()
	findings := []Classified{{Path: p + hostile, Result: "failure" + hostile,
		Matches:  []prowcrawl.RunSymptom{{SymptomID: "pod-network-cross-node", Hits: 2, File: p + "/" + hostile, Line: 3, Excerpt: "error: " + hostile}},
		Problems: []prowcrawl.RunError{{Object: p + "/" + hostile, Kind: prowcrawl.ErrorParse, Message: hostile}}}}
	if err := Classification(&b, findings, "table"); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String())
	checkShown(t, b.String())
}

// TestHostileSuggest: a failure text that quotes hostile log lines, which
// suggest proposes as a symptom: its table and its rules file are safe
// lines, and the rules file is still a valid one whose rule matches the
// line it was proposed from.
func TestHostileSuggest(t *testing.T) {
	var runs []suggest.Run
	for i := range 60 {
		runs = append(runs, suggest.Run{Job: hostileJob, BuildID: int64(i + 1), Edge: "4.13->4.14 minor", Failed: i%2 == 0})
	}
	// One line: a rule matches lines, so a proposal's text cannot span
	// one. Without a C1 control, which the rules file cannot hold (a
	// proposal quoting one is refused as an invalid rule), and without
	// a BEL, which a proposal's pattern reads as a blank.
	const line = "\x1b]52;c;aGk=\x1b\\\x1b[2J\u202e|x|)[x](https://evil.example)"
	col := suggest.New(runs, suggest.Options{})
	for i := range runs {
		if !runs[i].Failed {
			continue
		}
		col.Add(suggest.Text{Run: i, Kind: suggest.KindLog, File: "artifacts/e2e/build-log.txt",
			Text: fmt.Sprintf("E1130 error: lease lost %s for router-%d", line, i)})
	}
	res, err := col.Propose(5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proposals) == 0 {
		t.Fatalf("nothing proposed: %+v", res)
	}
	for _, format := range []string{FormatTable, FormatYAML} {
		var b bytes.Buffer
		if err := WriteSuggestions(&b, res, format, Options{Wide: true}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for i, line := range strings.Split(out, "\n") {
			if safe.Line(line) != line {
				t.Errorf("%s: line %d is not one safe line: %q", format, i+1, line)
			}
			if strings.HasPrefix(strings.TrimSpace(line), "forged") {
				t.Errorf("%s: line %d was forged: %q", format, i+1, line)
			}
		}
		if format != FormatYAML {
			continue
		}
		rules, err := classify.ParseRules("proposed.yaml", b.Bytes())
		if err != nil {
			t.Fatalf("the rules file is not valid: %v\n%s", err, out)
		}
		eng, err := classify.NewEngine(rules)
		if err != nil {
			t.Fatal(err)
		}
		s := eng.Begin(classify.RunInfo{})
		// suggest reads a text with its ANSI sequences taken out, as
		// prow.StripANSI takes them: the line as it proposed from it.
		log := prow.StripANSI(fmt.Sprintf("E1130 error: lease lost %s for router-%d", line, 2)) + "\n"
		if err := s.File(t.Context(), "artifacts/e2e/build-log.txt", strings.NewReader(log)); err != nil {
			t.Fatal(err)
		}
		if len(s.Matches()) == 0 {
			t.Errorf("the proposed rule does not match the line it was proposed from:\n%s", out)
		}
	}
}

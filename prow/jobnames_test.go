package prow

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// jobNamesFile is the real-name table: real OpenShift CI job names of every
// era (2019 template jobs to 2026), from Sippy's variant tests and
// configuration, openshift/release ci-operator configurations and ci-tools,
// with the variants ParseJobName must give and, in the last column, why
// they differ from Sippy's where they do.
const jobNamesFile = "testdata/jobnames.tsv"

// jobNameRow is a line of the table.
type jobNameRow struct {
	line int
	name string
	want Variants
	note string
}

// jobNameColumns are the table's columns, in order.
var jobNameColumns = []string{"name", "release", "from_release", "upgrade", "platform", "network", "arch", "topology", "type", "stack", "note"}

func readJobNames(t testing.TB) []jobNameRow {
	t.Helper()
	f, err := os.Open(jobNamesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []jobNameRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != len(jobNameColumns) {
			t.Fatalf("%s:%d: %d columns, want %d", jobNamesFile, n, len(cols), len(jobNameColumns))
		}
		un := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		rows = append(rows, jobNameRow{line: n, name: cols[0], note: cols[10], want: Variants{
			Release: un(cols[1]), FromRelease: un(cols[2]), Upgrade: un(cols[3]), Platform: un(cols[4]),
			Network: un(cols[5]), Arch: un(cols[6]), Topology: un(cols[7]), Type: un(cols[8]), Stack: un(cols[9]),
		}})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func dashed(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// sippyDiffs names the variants where v and Sippy's rules differ.
func sippyDiffs(name string, v Variants) []string {
	s := sippyVariants(name)
	var d []string
	for _, f := range []struct {
		field  string
		ours   string
		theirs string
	}{
		{"release", v.Release, s.Release}, {"from_release", v.FromRelease, s.FromRelease},
		{"upgrade", v.Upgrade, s.Upgrade}, {"platform", v.Platform, s.Platform},
		{"network", v.Network, s.Network}, {"arch", v.Arch, s.Arch}, {"topology", v.Topology, s.Topology},
	} {
		if f.ours != f.theirs {
			d = append(d, fmt.Sprintf("%s %s (Sippy %s)", f.field, dashed(f.ours), dashed(f.theirs)))
		}
	}
	return d
}

// TestJobNamesTable (-update rewrites the table from ParseJobName, keeping
// its notes) runs the real-name table against ParseJobName, and
// checks that every difference from Sippy's rules is explained in the
// table and that no explanation is left over where there is none.
func TestJobNamesTable(t *testing.T) {
	rows := readJobNames(t)
	if *update {
		writeJobNames(t, rows)
		rows = readJobNames(t)
	}
	upgrades := 0
	seen := map[string]int{}
	for _, r := range rows {
		if strings.Contains(r.name, "upgrade") {
			upgrades++
		}
		if prev, dup := seen[r.name]; dup {
			t.Errorf("%s:%d: %s is on line %d too", jobNamesFile, r.line, r.name, prev)
		}
		seen[r.name] = r.line
		got := ParseJobName(r.name)
		if got != r.want {
			t.Errorf("%s:%d: %s\n got  %+v\n want %+v", jobNamesFile, r.line, r.name, got, r.want)
		}
		diffs := sippyDiffs(r.name, r.want)
		switch {
		case len(diffs) > 0 && !strings.HasPrefix(r.note, "sippy: "):
			t.Errorf("%s:%d: %s differs from Sippy (%s) without a note saying why", jobNamesFile, r.line, r.name, strings.Join(diffs, ", "))
		case len(diffs) == 0 && r.note != "-":
			t.Errorf("%s:%d: %s agrees with Sippy, but the note says %q", jobNamesFile, r.line, r.name, r.note)
		case len(diffs) > 0:
			for _, d := range diffs {
				if field, _, _ := strings.Cut(d, " "); !strings.Contains(r.note, field) {
					t.Errorf("%s:%d: %s: the note does not explain %s", jobNamesFile, r.line, r.name, d)
				}
			}
		}
	}
	if upgrades < 300 {
		t.Errorf("the table holds %d upgrade jobs, want at least 300", upgrades)
	}
}

// writeJobNames rewrites the table with what ParseJobName gives, keeping
// the comments and notes, and marking rows that now differ from Sippy with
// no note as "sippy: TODO" for a person to explain.
func writeJobNames(t *testing.T, rows []jobNameRow) {
	t.Helper()
	data, err := os.ReadFile(jobNamesFile)
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, r := range rows {
		notes[r.name] = r.note
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		v := ParseJobName(name)
		note := notes[name]
		if note == "" {
			note = "-"
		}
		if d := sippyDiffs(name, v); len(d) > 0 && !strings.HasPrefix(note, "sippy: ") {
			note = "sippy: TODO " + strings.Join(d, ", ")
		}
		fmt.Fprintf(&out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, dashed(v.Release), dashed(v.FromRelease),
			dashed(v.Upgrade), dashed(v.Platform), dashed(v.Network), dashed(v.Arch), dashed(v.Topology), dashed(v.Type), note)
	}
	if err := os.WriteFile(jobNamesFile, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

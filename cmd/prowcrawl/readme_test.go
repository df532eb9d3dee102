package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documentation and the command line must agree: what --help lists is
// what the documentation's flag tables document, and the other way round.
// The test learns the commands from the top-level usage, each command's
// flags from its --help, and the documentation's from its flag tables, so a
// new command or flag needs no change here, only in the documentation.
//
// The documentation is README.md and every docs/*.md: a check finds its
// blocks in whichever of these files holds them, and says which.
//
// A flag table is a Markdown table with a "flag" column (each cell may name
// several flags: `--alpha`, `--min-hits`). The commands a row documents are
// those of its "command" column when the table has one, else those named by
// the nearest comment before the table in its file: <!-- flags: crawl
// backfill -->.

// repoRoot is the repository's root, from this package's directory.
var repoRoot = filepath.Join("..", "..")

// docFiles returns the documentation: README.md and every docs/*.md, each
// by its path in the repository ("README.md", "docs/USAGE.md") -> its text.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range append([]string{filepath.Join(repoRoot, "README.md")}, paths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.ToSlash(rel)] = string(b)
	}
	return out
}

// docNames returns the names of docs in order: README.md first, then the
// others sorted.
func docNames(docs map[string]string) []string {
	names := slices.Sorted(maps.Keys(docs))
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == "README.md" && b != a:
			return -1
		case b == "README.md" && a != b:
			return 1
		}
		return 0
	})
	return names
}

// findBlock returns the first match of re in the documentation and the
// file that holds it; a second file that holds one too is an error.
func findBlock(t *testing.T, docs map[string]string, re *regexp.Regexp) (name string, m []string) {
	t.Helper()
	for _, n := range docNames(docs) {
		if mm := re.FindStringSubmatch(docs[n]); mm != nil {
			if m != nil {
				t.Errorf("%s and %s both hold a block that %s matches: keep one", name, n, re)
				continue
			}
			name, m = n, mm
		}
	}
	return name, m
}

// commandFlags returns, for each command of the top-level usage, the long
// flags its --help lists.
func commandFlags(t *testing.T) map[string][]string {
	t.Helper()
	out := make(map[string][]string)
	for _, cmd := range commands(t) {
		out[cmd] = nil
		for _, l := range strings.Split(helpText(t, cmd), "\n") {
			if m := helpFlag.FindStringSubmatch(l); m != nil && m[1] != "help" {
				out[cmd] = append(out[cmd], "--"+m[1])
			}
		}
	}
	return out
}

// commands returns the commands of the top-level usage, in its order.
func commands(t *testing.T) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range synopsis(stdout.String()) {
		if cmd := strings.Fields(line)[1]; !slices.Contains(out, cmd) {
			out = append(out, cmd)
		}
	}
	return out
}

// helpText is what `prowcrawl CMD --help` prints.
func helpText(t *testing.T, cmd string) string {
	t.Helper()
	var o, e bytes.Buffer
	err := run(t.Context(), []string{cmd, "--help"}, &o, &e)
	if err != nil && !errors.Is(err, errHelp) {
		t.Fatalf("prowcrawl %s --help: %v", cmd, err)
	}
	return e.String() + o.String()
}

// helpFlag matches a flag's line in pflag's PrintDefaults.
var helpFlag = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)`)

// synopsis returns the "prowcrawl COMMAND ..." lines of a usage text,
// spaces collapsed; a sentence is none.
func synopsis(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "prowcrawl" && commandWord.MatchString(f[1]) && (!strings.HasSuffix(l, ".") || strings.HasSuffix(l, "...")) {
			out = append(out, strings.Join(f, " "))
		}
	}
	return out
}

var commandWord = regexp.MustCompile(`^[a-z]+$`)

// docRow is a row of a flag table: its flags document one or more of its
// commands (each flag at least one).
type docRow struct {
	file  string // the file of the documentation that holds it
	line  int
	flags []string
	cmds  []string
}

// docFlags returns the rows of the documentation's flag tables, and its
// usage block (the first code block after a heading "# Usage" or
// "## Usage") with the file that holds it.
func docFlags(t *testing.T) (rows []docRow, usage []string, usageFile string) {
	t.Helper()
	docs := docFiles(t)
	for _, name := range docNames(docs) {
		r, u := fileFlags(t, name, docs[name])
		rows = append(rows, r...)
		if u == nil {
			continue
		}
		if usage != nil {
			t.Errorf("%s and %s both have a usage block under a heading \"Usage\": keep one", usageFile, name)
			continue
		}
		usage, usageFile = u, name
	}
	return rows, usage, usageFile
}

// fileFlags returns the rows of the flag tables of one file of the
// documentation, name, and its usage block (nil when it has none).
func fileFlags(t *testing.T, name, text string) (rows []docRow, usage []string) {
	t.Helper()
	marker := regexp.MustCompile(`<!--\s*flags:([^>]*)-->`)
	flagName := regexp.MustCompile("`(--[a-z0-9][a-z0-9-]*)")
	var marked []string   // commands of the last marker
	var header []string   // the current table's header, lower case
	var usageBlock bool   // inside the code block after "## Usage"
	var sawUsage bool     // "## Usage" or "# Usage" seen
	var lineNo, start int // the table's first line
	var reported int      // the table last said to name no command
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		lineNo++
		switch {
		case line == "## Usage" || line == "# Usage":
			sawUsage = true
		case sawUsage && usage == nil && strings.HasPrefix(line, "```"):
			usageBlock = true
			usage = []string{}
			continue
		case usageBlock && strings.HasPrefix(line, "```"):
			usageBlock = false
		case usageBlock:
			usage = append(usage, synopsis(line)...)
		}
		if m := marker.FindStringSubmatch(line); m != nil {
			marked = strings.Fields(strings.ReplaceAll(m[1], ",", " "))
			continue
		}
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil {
			header = make([]string, len(cells))
			for i, c := range cells {
				header[i] = strings.ToLower(c)
			}
			start = lineNo
			continue
		}
		fcol, ccol := slices.Index(header, "flag"), slices.Index(header, "command")
		if fcol < 0 || fcol >= len(cells) || strings.Trim(cells[fcol], "-: ") == "" {
			continue // not a flag table, or its separator row
		}
		cmds := marked
		if ccol >= 0 && ccol < len(cells) {
			cmds = strings.Fields(strings.NewReplacer("`", " ", ",", " ").Replace(cells[ccol]))
		}
		if len(cmds) == 0 && start != reported {
			reported = start
			t.Errorf("%s:%d: the flag table that starts on line %d names no command: put <!-- flags: COMMAND... --> on a line before it, or give it a \"command\" column", name, lineNo, start)
		}
		row := docRow{file: name, line: lineNo, cmds: cmds}
		for _, m := range flagName.FindAllStringSubmatch(cells[fcol], -1) {
			row.flags = append(row.flags, m[1])
		}
		rows = append(rows, row)
	}
	return rows, usage
}

// TestREADMEAgreesWithHelp: every flag of every command is in the
// documentation's flag tables, and every flag there is a flag of its
// command.
func TestREADMEAgreesWithHelp(t *testing.T) {
	cli := commandFlags(t)
	rows, usage, usageFile := docFlags(t)
	doc := make(map[string][]string) // flags documented per command
	for _, r := range rows {
		for _, c := range r.cmds {
			doc[c] = append(doc[c], r.flags...)
		}
	}
	if len(cli) < 5 || len(doc) < 5 {
		t.Fatalf("found %d commands in the usage and %d in the documentation's flag tables: the parsing is broken", len(cli), len(doc))
	}
	for cmd, flags := range cli {
		for _, f := range flags {
			if !slices.Contains(doc[cmd], f) {
				t.Errorf("`prowcrawl %s --help` lists %s, but no flag table of README.md or docs/*.md documents it for %s: add a row with %s to the table of %s's flags "+
					"(the table after <!-- flags: ... %s ... --> in docs/USAGE.md, or a row of the table with a \"command\" column that names %s)", cmd, f, cmd, f, cmd, cmd, cmd)
			}
		}
	}
	for _, r := range rows {
		for _, c := range r.cmds {
			if _, ok := cli[c]; !ok {
				t.Errorf("%s:%d documents flags of %q, which the top-level usage (usage in main.go) does not list as a command", r.file, r.line, c)
			}
		}
		for _, f := range r.flags {
			if !slices.ContainsFunc(r.cmds, func(c string) bool { return slices.Contains(cli[c], f) }) {
				t.Errorf("%s:%d documents %s for %s, but no `prowcrawl COMMAND --help` of these has such a flag: remove it, or name the right command", r.file, r.line, f, strings.Join(r.cmds, ", "))
			}
		}
	}

	// The usage block of the documentation is the top-level usage.
	if usage == nil {
		t.Fatal("no file of the documentation has a usage block: a code block after a heading \"## Usage\" (docs/USAGE.md) that lists the commands of `prowcrawl help`")
	}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got := synopsis(stdout.String()); !slices.Equal(got, usage) {
		for i := range max(len(got), len(usage)) {
			var g, u string
			if i < len(got) {
				g = got[i]
			}
			if i < len(usage) {
				u = usage[i]
			}
			if g != u {
				t.Errorf("the usage block under Usage in %s and `prowcrawl help` (usage in main.go) must list the same commands, in the same order and words; line %d:\n%s: %s\nhelp: %s", usageFile, i+1, usageFile, u, g)
				break
			}
		}
	}
}

// mdLink finds a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingSlug is the anchor GitHub gives a heading: lower case, letters,
// digits, hyphens and underscores kept, spaces made hyphens.
func headingSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown text's headings, outside code
// blocks.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(l, "#") {
			out[headingSlug(strings.TrimLeft(l, "#"))] = true
		}
	}
	return out
}

// TestDocLinks: every relative link of the documentation names a file or
// directory of the repository, and every #anchor a heading of its page.
func TestDocLinks(t *testing.T) {
	docs := docFiles(t)
	for _, name := range docNames(docs) {
		fenced := false
		for i, l := range strings.Split(docs[name], "\n") {
			if strings.HasPrefix(l, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				page := name
				if file != "" {
					page = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
					if _, err := os.Stat(filepath.Join(repoRoot, page)); err != nil {
						t.Errorf("%s:%d links to %s, which does not exist", name, i+1, target)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				text, ok := docs[page]
				if !ok {
					b, err := os.ReadFile(filepath.Join(repoRoot, page))
					if err != nil {
						t.Errorf("%s:%d links to %s: %v", name, i+1, target, err)
						continue
					}
					text = string(b)
				}
				if !anchors(text)[anchor] {
					t.Errorf("%s:%d links to %s, but %s has no heading whose anchor is #%s", name, i+1, target, page, anchor)
				}
			}
		}
	}
}

// helpRE finds a quoted --help: <!-- help: CMD -->, then a code block whose
// first line is "$ prowcrawl CMD --help".
var helpRE = regexp.MustCompile("(?s)<!-- help: ([a-z]+) -->\\s*```\\n(.*?)```")

var updateHelp = flag.Bool("update-help", false, "write each command's --help into the <!-- help: CMD --> blocks of docs/USAGE.md")

// usagePath is the usage reference, which quotes every command's --help.
var usagePath = filepath.Join(repoRoot, "docs", "USAGE.md")

// TestUsageHelp: docs/USAGE.md quotes the --help of every command of the
// top-level usage that has one (a usage, not only a line such as version's),
// each after <!-- help: CMD -->, as the command prints it. With
// -update-help it writes them there instead:
// go test ./cmd/prowcrawl -run UsageHelp -update-help.
func TestUsageHelp(t *testing.T) {
	b, err := os.ReadFile(usagePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	want := map[string]string{}
	for _, cmd := range commands(t) {
		if h := helpText(t, cmd); strings.HasPrefix(h, "Usage: prowcrawl ") {
			want[cmd] = "$ prowcrawl " + cmd + " --help\n" + strings.Join(trimLines(h), "\n") + "\n"
		}
	}
	if len(want) < 5 {
		t.Fatalf("%d commands with a --help: the parsing is broken", len(want))
	}
	quoted := map[string]bool{}
	updated := helpRE.ReplaceAllStringFunc(text, func(block string) string {
		m := helpRE.FindStringSubmatch(block)
		cmd, got := m[1], m[2]
		if quoted[cmd] {
			t.Errorf("docs/USAGE.md quotes the --help of %s twice", cmd)
		}
		quoted[cmd] = true
		w, ok := want[cmd]
		if !ok {
			t.Errorf("docs/USAGE.md quotes the --help of %q, which is no command of the top-level usage with a --help", cmd)
			return block
		}
		if *updateHelp {
			return "<!-- help: " + cmd + " -->\n```\n" + w + "```"
		}
		if strings.Join(trimLines(got), "\n") != strings.TrimSuffix(w, "\n") {
			t.Errorf("docs/USAGE.md quotes `prowcrawl %s --help`, which now prints (copy it, or run this test with -update-help):\n%s", cmd, w)
		}
		return block
	})
	for _, cmd := range slices.Sorted(maps.Keys(want)) {
		if !quoted[cmd] {
			t.Errorf("docs/USAGE.md does not quote `prowcrawl %s --help`: add <!-- help: %s --> and an empty code block, then run this test with -update-help", cmd, cmd)
		}
	}
	if *updateHelp && updated != text {
		if err := os.WriteFile(usagePath, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

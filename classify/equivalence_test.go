package classify

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/prow"
)

// raceEnabled is set when the race detector is on.
var raceEnabled bool

// naiveResult is what the naive matcher finds for one matcher.
type naiveResult struct {
	count, line int
}

// naiveText matches a text file the slow way: every line through every
// regex of every lines and sequence matcher of e, with no prefilter. The
// engine must find exactly the same.
func naiveText(e *Engine, start time.Time, content []byte) []naiveResult {
	res := make([]naiveResult, len(e.matchers))
	type first struct {
		at       time.Time
		ns, node string
		line     int
	}
	firsts := make(map[int][]first)
	text := []byte(prow.StripANSI(string(content)))
	lines := bytes.Split(text, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	note := func(id, line int) {
		if res[id].count == 0 {
			res[id].line = line
		}
		res[id].count++
	}
	for i, line := range lines {
		if len(line) > maxLine {
			line = line[:maxLine]
		} else {
			line = bytes.TrimSuffix(line, []byte("\r"))
		}
		timed, timedOK := prow.ParseTimedLine(line, start)
		for _, m := range e.matchers {
			switch m.kind {
			case kindLines:
				ok := len(m.lines.any) == 0
				for _, a := range m.lines.any {
					cidr := m.lines.cidr
					if m.lines.cluster {
						cidr = append(slices.Clone(cidr), DefaultClusterNetwork)
					}
					if naiveAny(a, line, cidr) {
						ok = true
						break
					}
				}
				for _, re := range m.lines.all {
					ok = ok && re.Match(line)
				}
				for _, re := range m.lines.not {
					ok = ok && !re.Match(line)
				}
				if ok {
					note(m.id, i+1)
				}
			case kindSequence:
				if !timedOK {
					continue
				}
				seq := m.sequence
				if seq.then.MatchString(timed.Text) {
					for _, f := range firsts[m.id] {
						d := timed.At.Sub(f.at)
						switch {
						case d < 0 || d > seq.within:
						case seq.different == differentNamespace && (f.ns == "" || timed.Namespace == "" || f.ns == timed.Namespace):
						case seq.different == differentNode && (f.node == "" || timed.Node == "" || f.node == timed.Node):
						default:
							note(m.id, f.line)
						}
					}
				}
				if seq.first.MatchString(timed.Text) {
					firsts[m.id] = append(firsts[m.id], first{timed.At, timed.Namespace, timed.Node, i + 1})
				}
			}
		}
	}
	return res
}

func naiveAny(a anyRegex, line []byte, cidr []netip.Prefix) bool {
	if len(cidr) == 0 || a.ipGroup < 0 {
		return a.re.Match(line)
	}
	for _, loc := range a.re.FindAllSubmatchIndex(line, -1) {
		if s, e := loc[2*a.ipGroup], loc[2*a.ipGroup+1]; s >= 0 && inPrefixes(line[s:e], cidr) {
			return true
		}
	}
	return false
}

// engineResults runs the engine on a text file and returns what each
// matcher found.
func engineResults(t testing.TB, e *Engine, start time.Time, content []byte) []naiveResult {
	s := e.Begin(RunInfo{Start: start})
	if err := s.File(context.Background(), "build-log.txt", bytes.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	res := make([]naiveResult, len(e.matchers))
	for _, m := range e.matchers {
		if st := s.state[m.id]; st.count > 0 {
			res[m.id] = naiveResult{st.count, st.ev.line}
		}
	}
	return res
}

// equivalenceRules are rules whose regexes stress the prefilter: case
// folding inside and outside ASCII, U+FFFD, regexes without literals,
// all-only matchers, anchors, cidr and sequences.
const equivalenceRules = `
symptoms:
  - id: fold
    title: fold
    files: [build-log.txt]
    match:
      - lines: {any: ['(?i)kelvin', '(?i)transport is closing', '(?i)[k]x']}
  - id: odd
    title: odd
    files: [build-log.txt]
    match:
      - lines: {any: ["a\uFFFDb", '^[0-9]{3}$', 'alpha$', '^\s*beta', '(?:x|y)+z']}
  - id: all-only
    title: all only
    files: [build-log.txt]
    match:
      - lines: {all: [connect, refused], not: ['2380'], min: 2}
  - id: cidr
    title: cidr
    files: [build-log.txt]
    match:
      - lines:
          any: ['(?P<ip>[0-9.]+):[0-9]+: (?:i/o timeout|connect)', 'https?://(?P<ip>[0-9.]+)']
          cidr: [10.128.0.0/14]
  - id: seq
    title: seq
    files: [build-log.txt]
    match:
      - sequence: {first: 'ns/openshift-sdn .*Killing', then: '(?i)readiness probe failed', within: 30s, different: namespace}
      - sequence: {first: 'alpha', then: 'beta', within: 2s, different: node}
`

// equivalencePieces are what random lines are made of.
var equivalencePieces = []string{
	"dial tcp 10.0.61.114:2379: connect: connection refused", "dial tcp 10.129.0.4:8080: i/o timeout", "10.128.3.4:80: connect",
	"10.0.3.4:80: i/o timeout", "http://10.130.1.1/x", "https://10.0.0.1:6443", "2380", "connect", "refused",
	`desc = "transport is closing"`, "TRANSPORT IS CLOSING", "tran\u017fport i\u017f clo\u017fing", "\u212aelvin", "KELVIN", "\u212ax", "Kx",
	"NetworkPluginNotReady", " Missing CNI default network", "ns/openshift-sdn", "ns/openshift-apiserver", "reason/Killing",
	"Readiness probe failed", "readiness PROBE failed", "node/n1", "node/n2", "\x1b[31m", "\x1b[0m", "\x1b[", "\r", "\x00", "\xff",
	"a\xffb", "a\ufffdb", " ", "x", "y", "z", "xyz", "123", "alpha", "beta", "  beta", "Client.Timeout exceeded",
	`Get "https://10.128.2.14:9090/-/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
}

// randomLog returns a log of about n lines made of equivalencePieces,
// many of them timed in order, some very long.
func randomLog(rng *rand.Rand, n int, long bool) []byte {
	var b bytes.Buffer
	at := runStart.Add(time.Hour)
	for i := 0; i < n; i++ {
		at = at.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "%s %c ", at.Format("Jan 02 15:04:05.000"), "IWE"[rng.IntN(3)])
		case 1:
			fmt.Fprintf(&b, "%c%s 1 x.go:1] ", "IWE"[rng.IntN(3)], at.Format("0102 15:04:05.000000"))
		case 2:
			fmt.Fprintf(&b, "%s ", at.Format(time.RFC3339Nano))
		}
		for range rng.IntN(6) {
			b.WriteString(equivalencePieces[rng.IntN(len(equivalencePieces))])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		if long && rng.IntN(400) == 0 {
			b.WriteString(strings.Repeat("pad ", 15000+rng.IntN(5000)))
			b.WriteString(equivalencePieces[rng.IntN(len(equivalencePieces))])
		}
		if rng.IntN(50) != 0 || i < n-1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// randomRegex returns a random regex built from the pieces.
func randomRegex(rng *rand.Rand) string {
	piece := func() string {
		return strings.ToValidUTF8(equivalencePieces[rng.IntN(len(equivalencePieces))], "\ufffd")
	}
	var parts []string
	for range 1 + rng.IntN(4) {
		switch rng.IntN(8) {
		case 0:
			parts = append(parts, `.*`)
		case 1:
			parts = append(parts, `[0-9]+`)
		case 2:
			parts = append(parts, `\b`)
		case 3:
			a, b := piece(), piece()
			parts = append(parts, "(?:"+regexp.QuoteMeta(a)+"|"+regexp.QuoteMeta(b)+")")
		case 4:
			parts = append(parts, "(?i:"+regexp.QuoteMeta(piece())+")")
		case 5:
			parts = append(parts, "(?:"+regexp.QuoteMeta(piece())+")?")
		default:
			parts = append(parts, regexp.QuoteMeta(piece()))
		}
	}
	return strings.Join(parts, "")
}

// TestEquivalence checks the prefilter: on random logs, the engine's hits
// and first lines equal those of running every line through every regex.
func TestEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base, err := ParseRules("eq.yaml", []byte(equivalenceRules))
	if err != nil {
		t.Fatal(err)
	}
	base = Merge(benchRules(), base)
	rounds := 150
	if testing.Short() || raceEnabled {
		rounds = 30
	}
	for round := range rounds {
		rules := base
		for i := range 3 {
			var any []string
			for range 1 + rng.IntN(3) {
				any = append(any, randomRegex(rng))
			}
			rules = append(rules, Rule{ID: fmt.Sprintf("random-%d", i), Title: "random", Files: []string{"build-log.txt"},
				Match: []Matcher{{Lines: &LinesMatcher{Any: any}}, {Sequence: &SequenceMatcher{First: randomRegex(rng), Then: randomRegex(rng), Within: 5 * time.Second}}}})
		}
		e, err := NewEngine(rules)
		if err != nil {
			t.Fatal(err)
		}
		n, long := 60, false
		if round%50 == 0 {
			n, long = 5000, true // several chunks, and lines over 64 KiB
		}
		log := randomLog(rng, n, long)
		got, want := engineResults(t, e, runStart, log), naiveText(e, runStart, log)
		for _, m := range e.matchers {
			if got[m.id] != want[m.id] {
				r := e.compiled[m.rule].rule
				t.Fatalf("round %d: rule %s match[%d] %+v: engine %+v, naive %+v\nlog:\n%q", round, r.ID, m.id, r.Match, got[m.id], want[m.id], truncateUTF8(string(log), 4000))
			}
		}
	}
}

// fuzzEngine is the engine FuzzEngine uses.
func fuzzEngine(t testing.TB) *Engine {
	rules, err := ParseRules("eq.yaml", []byte(equivalenceRules))
	if err != nil {
		t.Fatal(err)
	}
	rules = Merge(benchRules(), rules)
	for i := range rules {
		rules[i].Files = append(rules[i].Files, "e2e-events.json", "backend-disruption.json")
	}
	e, err := NewEngine(rules)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func FuzzEngine(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5 {
		f.Add(randomLog(rng, 20, false))
	}
	f.Add([]byte(`{"items":[{"locator":"ns/openshift-sdn node/n1","message":"reason/Killing x","from":"2026-11-12T20:00:00Z"},{"locator":"ns/a","message":"Readiness probe failed","from":"2026-11-12T20:00:01Z"}]}`))
	f.Add([]byte(`{"BackendDisruptions":{"pod-to-pod-new-connections":{"BackendName":"pod-to-pod","DisruptedDuration":"1s"}}}`))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("I1112 20:00:01.000000 1 probe.go:1] Readiness probe failed: dial tcp 10.128.2.7:8443: connect: connection refused\n"))
	zw.Close()
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()/2])
	e := fuzzEngine(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var logErr string // of the scan as build-log.txt
		for _, rel := range []string{"build-log.txt", "e2e-events.json", "backend-disruption.json"} {
			run := func() ([]Match, string) {
				s := e.Begin(RunInfo{Start: runStart})
				err := s.File(context.Background(), rel, bytes.NewReader(b))
				return s.Matches(), fmt.Sprint(err)
			}
			m1, err1 := run()
			m2, err2 := run()
			if !reflect.DeepEqual(m1, m2) || err1 != err2 {
				t.Fatalf("%s: two scans differ", rel)
			}
			if rel == "build-log.txt" {
				logErr = err1
			}
			for _, m := range m1 {
				if len(m.Excerpt) > MaxExcerpt || !utf8.ValidString(m.Excerpt) || m.Hits < 1 {
					t.Fatalf("%s: bad match %+v", rel, m)
				}
			}
		}
		// The engine expands gzip content and refuses broken gzip; the
		// naive matcher reads what the engine reads.
		text := b
		if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err == nil {
				text, err = io.ReadAll(zr)
			}
			if err != nil {
				if logErr == fmt.Sprint(nil) {
					t.Fatalf("broken gzip (%v) scanned without an error", err)
				}
				return
			}
		}
		got, want := engineResults(t, e, runStart, b), naiveText(e, runStart, text)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("engine %v, naive %v", got, want)
		}
	})
}

// TestEquivalenceUpgrade checks the engine on the realistic upgrade logs
// the benchmark reads, with the built-in rules (whose literals are long
// enough for the skipper) and with rules of random regexes made of the
// logs' own phrases: the engine finds exactly what the naive matcher does.
func TestEquivalenceUpgrade(t *testing.T) {
	size, rounds := 1<<20, 3
	if testing.Short() || raceEnabled {
		size, rounds = 128<<10, 2
	}
	log := upgradeLog(size)
	phrases := []string{"Readiness probe failed", "context deadline exceeded", "connect: connection refused", "reason/Killing",
		"ns/openshift-ovn-kubernetes", "Client.Timeout exceeded", "dial tcp ", "reason/ProbeError", "Stopping container",
		"no route to host", "reason/DisruptionBegan", "clusteroperator/network"}
	rng := rand.New(rand.NewPCG(15, 16))
	phrase := func() string { return regexp.QuoteMeta(phrases[rng.IntN(len(phrases))]) }
	for round := range rounds {
		rules := benchRules()
		if round > 0 {
			var any []string
			for range 3 {
				switch rng.IntN(3) {
				case 0:
					any = append(any, phrase()+`.*\b`+phrase())
				case 1:
					any = append(any, `(?i)`+phrase()+`[^"]*"?`)
				default:
					any = append(any, `(?:`+phrase()+`|`+phrase()+`) \(?[0-9]+`)
				}
			}
			rules = append(rules, Rule{ID: "phrases", Title: "phrases", Files: []string{"build-log.txt"},
				Match: []Matcher{{Lines: &LinesMatcher{Any: any, Not: []string{phrase()}}},
					{Sequence: &SequenceMatcher{First: phrase(), Then: phrase(), Within: 10 * time.Second, Different: DifferentNode}}}})
		}
		e, err := NewEngine(rules)
		if err != nil {
			t.Fatal(err)
		}
		got, want := engineResults(t, e, runStart, log), naiveText(e, runStart, log)
		hits := 0
		for _, m := range e.matchers {
			hits += want[m.id].count
			if got[m.id] != want[m.id] {
				r := e.compiled[m.rule].rule
				t.Fatalf("round %d: rule %s match[%d] %+v: engine %+v, naive %+v", round, r.ID, m.id, r.Match, got[m.id], want[m.id])
			}
		}
		if hits == 0 {
			t.Fatalf("round %d: nothing matched", round)
		}
	}
}

// TestEquivalenceManyLiterals is TestEquivalence's check with more first
// literals than the skipper notes by line (64): its lines then go through
// the automaton.
func TestEquivalenceManyLiterals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	rules := benchRules()
	var markers []string
	for i := range 70 {
		m := fmt.Sprintf("marker-%02d-symptom", i)
		markers = append(markers, m)
		rules = append(rules, Rule{ID: fmt.Sprintf("many-%d", i), Title: "many", Files: []string{"build-log.txt"},
			Match: []Matcher{{Lines: &LinesMatcher{Any: []string{m + ` [0-9]+`}}}}})
	}
	e, err := NewEngine(rules)
	if err != nil {
		t.Fatal(err)
	}
	active := make([]bool, len(e.compiled))
	for i := range active {
		active[i] = true
	}
	if p := e.programFor(fileText, active); p.skip == nil || p.skipProbes != nil {
		t.Fatal("want a skipper that does not note literals by line")
	}
	var b bytes.Buffer
	for _, line := range bytes.Split(randomLog(rng, 400, false), []byte("\n")) {
		b.Write(line)
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, " %s %d", markers[rng.IntN(len(markers))], rng.IntN(10))
		}
		b.WriteByte('\n')
	}
	log := b.Bytes()
	got, want := engineResults(t, e, runStart, log), naiveText(e, runStart, log)
	found := 0
	for _, m := range e.matchers {
		if got[m.id] != want[m.id] {
			t.Fatalf("rule %s: engine %+v, naive %+v", e.compiled[m.rule].rule.ID, got[m.id], want[m.id])
		}
		if got[m.id].count > 0 {
			found++
		}
	}
	if found < 40 {
		t.Errorf("%d matchers found something, want most", found)
	}
}

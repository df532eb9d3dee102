package classify

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

func TestParseRules(t *testing.T) {
	doc := `
symptoms:
  - id: every-kind
    title: Every kind of matcher
    description: a test
    bug: https://bugzilla.redhat.com/show_bug.cgi?id=1874385
    files: [build-log.txt, 'artifacts/**/e2e-events*.json']
    match:
      - lines:
          any: ['dial tcp (?P<ip>[0-9.]+):2379']
          all: [refused]
          not: [ignore]
          min: 2
          cidr: [10.128.0.0/14, 10.0.0.1/8]
      - events: {message: m, locator: l, reason: r, min: 3}
      - junit: {name: 'APIs remain available', status: [fail, flake]}
      - upgrade: {state: Partial}
      - disruption: {backend: pod-to-pod, min: 1s}
      - sequence: {first: a, then: b, within: 30s, different: node}
  - id: scalar-lists
    title: A scalar where a list may be
    files: build-log.txt
    match:
      - lines: {any: x}
`
	got, err := ParseRules("r.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{{
		ID: "every-kind", Title: "Every kind of matcher", Description: "a test", Bug: "https://bugzilla.redhat.com/show_bug.cgi?id=1874385",
		Source: "r.yaml", Files: []string{"build-log.txt", "artifacts/**/e2e-events*.json"},
		Match: []Matcher{
			{Lines: &LinesMatcher{Any: []string{"dial tcp (?P<ip>[0-9.]+):2379"}, All: []string{"refused"}, Not: []string{"ignore"}, Min: 2,
				CIDR: []netip.Prefix{netip.MustParsePrefix("10.128.0.0/14"), netip.MustParsePrefix("10.0.0.0/8")}}},
			{Events: &EventsMatcher{Message: "m", Locator: "l", Reason: "r", Min: 3}},
			{JUnit: &JUnitMatcher{Name: "APIs remain available", Status: []prow.TestStatus{prow.StatusFail, prow.StatusFlake}}},
			{Upgrade: &UpgradeMatcher{State: "Partial"}},
			{Disruption: &DisruptionMatcher{Backend: "pod-to-pod", Min: time.Second}},
			{Sequence: &SequenceMatcher{First: "a", Then: "b", Within: 30 * time.Second, Different: "node"}},
		},
	}, {
		ID: "scalar-lists", Title: "A scalar where a list may be", Source: "r.yaml", Files: []string{"build-log.txt"},
		Match: []Matcher{{Lines: &LinesMatcher{Any: []string{"x"}}}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestParseRulesErrors checks each kind of problem, with its line.
func TestParseRulesErrors(t *testing.T) {
	// valid is a rule with a placeholder for one more line of its lines
	// matcher; line 7 is the any regex, line 8 the placeholder.
	const valid = `symptoms:
  - id: a
    title: A
    files: [build-log.txt]
    match:
      - lines:
          any: ['x(?P<ip>y)']
          %s
`
	with := func(extra string) string { return strings.Replace(valid, "%s", extra, 1) }
	tests := []struct {
		name string
		doc  string
		want []string // each error, in order
	}{
		{"bad regex", strings.Replace(with(""), "'x(?P<ip>y)'", "'('", 1),
			[]string{"r.yaml:7: symptoms[0].match[0].lines.any[0]: bad regular expression `(`: missing closing )"}},
		{"bad regex in all", with("all: ['a', '[z-a]']"),
			[]string{"r.yaml:8: symptoms[0].match[0].lines.all[1]: bad regular expression `[z-a]`: invalid character class range: `z-a`"}},
		{"unknown field in a matcher", with("anyy: [x]"),
			[]string{`r.yaml:8: symptoms[0].match[0].lines.anyy: unknown field "anyy"; want one of any, all, not, min, cidr`}},
		{"unknown field in a symptom", "symptoms:\n  - id: a\n    titel: A\n",
			[]string{"r.yaml:2: symptoms[0]: missing title", // the typo is reported too
				"r.yaml:2: symptoms[0]: missing files", "r.yaml:2: symptoms[0]: missing match",
				`r.yaml:3: symptoms[0].titel: unknown field "titel"; want one of id, title, description, bug, files, match`}},
		{"unknown top-level field", "symptom:\n  - id: a\n",
			[]string{`r.yaml:1: symptom: unknown field "symptom"; want one of symptoms`}},
		{"repeated field", with("min: 2\n          min: 3"),
			[]string{"r.yaml:9: symptoms[0].match[0].lines.min: repeated field (first at line 8)"}},
		{"bad min", with("min: 0"),
			[]string{`r.yaml:8: symptoms[0].match[0].lines.min: bad count "0": want a whole number of at least 1`}},
		{"bad CIDR", with("cidr: [10.128.0.0/33]"),
			[]string{`r.yaml:8: symptoms[0].match[0].lines.cidr[0]: bad CIDR "10.128.0.0/33": want a network such as 10.128.0.0/14`}},
		{"cidr without ip group", strings.Replace(with("cidr: [10.128.0.0/14]"), "'x(?P<ip>y)'", "'x(y)'", 1),
			[]string{"r.yaml:7: symptoms[0].match[0].lines.any[0]: cidr is set but `x(y)` has no (?P<ip>...) group"}},
		{"empty matcher", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - {}\n",
			[]string{"r.yaml:6: symptoms[0].match[0]: empty matcher: want one of lines, events, junit, upgrade, disruption, sequence"}},
		{"empty lines matcher", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - lines:\n",
			[]string{"r.yaml:6: symptoms[0].match[0].lines: lines needs any or all"}},
		{"two matchers in one entry", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - lines: {any: [x]}\n        upgrade: {state: Partial}\n",
			[]string{"r.yaml:6: symptoms[0].match[0]: more than one matcher in one entry; make each its own list entry"}},
		{"missing id, title, files and match", "symptoms:\n  - description: d\n",
			[]string{"r.yaml:2: symptoms[0]: missing id", "r.yaml:2: symptoms[0]: missing title", "r.yaml:2: symptoms[0]: missing files", "r.yaml:2: symptoms[0]: missing match"}},
		{"bad id", strings.Replace(with(""), "id: a", "id: Bad_ID", 1),
			[]string{`r.yaml:2: symptoms[0].id: id "Bad_ID" must be lower-case letters, digits and dashes, starting with a letter or digit`}},
		{"duplicate id", with("") + "  - id: a\n    title: B\n    files: [x]\n    match: [{upgrade: {state: Partial}}]\n",
			[]string{`r.yaml:9: symptoms[1].id: duplicate id "a" (first at line 2)`}},
		{"bad glob", strings.Replace(with(""), "[build-log.txt]", "[ok.txt, 'artifacts/{a,b']", 1),
			[]string{`r.yaml:4: symptoms[0].files[1]: bad glob "artifacts/{a,b": unclosed {`}},
		{"absolute glob", strings.Replace(with(""), "[build-log.txt]", "['/build-log.txt']", 1),
			[]string{`r.yaml:4: symptoms[0].files[0]: bad glob "/build-log.txt": must be relative to the run directory`}},
		{"bad bug URL", strings.Replace(with(""), "title: A", "title: A\n    bug: bz1874385", 1),
			[]string{`r.yaml:4: symptoms[0].bug: bug "bz1874385" is not an http(s) URL`}},
		{"bad duration", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - sequence: {first: a, then: b, within: 30}\n      - disruption: {min: fast}\n",
			[]string{`r.yaml:6: symptoms[0].match[0].sequence.within: bad duration "30": want a Go duration above zero such as 30s or 1m30s`,
				`r.yaml:7: symptoms[0].match[1].disruption.min: bad duration "fast": want a Go duration above zero such as 30s or 1m30s`}},
		{"sequence without within", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - sequence:\n          first: a\n          then: '('\n          different: pod\n",
			[]string{"r.yaml:6: symptoms[0].match[0].sequence: missing within",
				"r.yaml:8: symptoms[0].match[0].sequence.then: bad regular expression `(`: missing closing )",
				`r.yaml:9: symptoms[0].match[0].sequence.different: unknown value "pod": want namespace or node`}},
		{"events without a field", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - events: {min: 2}\n",
			[]string{"r.yaml:6: symptoms[0].match[0].events: events needs at least one of message, locator, reason"}},
		{"junit and upgrade values", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match:\n      - junit: {name: x, status: [failed]}\n      - upgrade: {state: partial}\n      - junit: {status: [fail]}\n",
			[]string{`r.yaml:6: symptoms[0].match[0].junit.status[0]: unknown status "failed": want fail, flake, pass or skip`,
				`r.yaml:7: symptoms[0].match[1].upgrade.state: unknown state "partial": want Partial or Completed`,
				"r.yaml:8: symptoms[0].match[2].junit: missing name"}},
		{"wrong types", "symptoms:\n  - id: [a]\n    title: A\n    files: {x: y}\n    match: [{lines: {any: [[x]]}}]\n",
			[]string{"r.yaml:2: symptoms[0].id: want a string", "r.yaml:4: symptoms[0].files: want a list", "r.yaml:5: symptoms[0].match[0].lines.any[0]: want a string"}},
		{"YAML syntax", "symptoms:\n  - id: a\n    title: 'b\n", []string{"r.yaml:3: found unexpected end of stream"}},
		{"empty file", "", []string{"r.yaml: no symptoms"}},
		{"no symptoms", "symptoms: []\n", []string{"r.yaml:1: symptoms: empty list"}},
		{"not a mapping", "- id: a\n", []string{"r.yaml:1: want a mapping with the fields symptoms"}},
		{"errors of several rules at once", "symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match: [{lines: {any: ['(']}}]\n  - id: b\n    files: [x]\n    match: [{lines: {any: [')']}}]\n",
			[]string{"r.yaml:5: symptoms[0].match[0].lines.any[0]: bad regular expression `(`: missing closing )",
				"r.yaml:6: symptoms[1]: missing title",
				"r.yaml:8: symptoms[1].match[0].lines.any[0]: bad regular expression `)`: unexpected )"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := ParseRules("r.yaml", []byte(tt.doc))
			if err == nil {
				t.Fatalf("no error; rules %+v", rules)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(got), len(tt.want), err)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d:\n got  %s\n want %s", i, got[i], tt.want[i])
				}
			}
			if rules != nil {
				t.Errorf("rules returned with an error")
			}
		})
	}
}

func TestParseRulesAliases(t *testing.T) {
	doc := `
files: &logs [build-log.txt, 'artifacts/*/openshift-e2e-test/build-log.txt']
symptoms:
  - id: a
    title: A
    files: *logs
    match: [{lines: {any: [x]}}]
`
	_, err := ParseRules("r.yaml", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), `unknown field "files"`) {
		t.Fatalf("top-level files: %v", err)
	}
	doc = `
symptoms:
  - id: a
    title: A
    files: &logs [build-log.txt]
    match: [{lines: {any: [x]}}]
  - id: b
    title: B
    files: *logs
    match: [{lines: {any: [y]}}]
`
	rules, err := ParseRules("r.yaml", []byte(doc))
	if err != nil || len(rules) != 2 || !reflect.DeepEqual(rules[1].Files, []string{"build-log.txt"}) {
		t.Fatalf("aliases: %v %+v", err, rules)
	}
}

func TestMerge(t *testing.T) {
	base := []Rule{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}, {ID: "c", Title: "C"}}
	over := []Rule{{ID: "d", Title: "D"}, {ID: "b", Title: "B2", Source: "mine.yaml"}}
	got := Merge(base, over)
	want := []Rule{{ID: "a", Title: "A"}, {ID: "b", Title: "B2", Source: "mine.yaml"}, {ID: "c", Title: "C"}, {ID: "d", Title: "D"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if base[1].Title != "B" {
		t.Errorf("Merge changed base")
	}
}

func TestBuiltinParses(t *testing.T) {
	rules := Builtin()
	if len(rules) == 0 {
		t.Fatal("no built-in rules")
	}
	for _, r := range rules {
		if r.Source != BuiltinSource {
			t.Errorf("%s: source %q", r.ID, r.Source)
		}
	}
	if _, err := NewEngine(rules); err != nil {
		t.Fatal(err)
	}
	b := BuiltinYAML()
	b[0] ^= 0xff
	if BuiltinYAML()[0] == b[0] {
		t.Errorf("BuiltinYAML returns the embedded bytes themselves")
	}
}

func TestNewEngineErrors(t *testing.T) {
	_, err := NewEngine([]Rule{
		{ID: "a", Title: "A", Files: []string{"x"}, Match: []Matcher{{Lines: &LinesMatcher{Any: []string{"("}}}}},
		{ID: "a", Title: "A", Files: []string{"x"}, Match: []Matcher{{}}},
	})
	want := "rule a: match[0].lines.any[0]: bad regular expression `(`: missing closing )\nrule a: duplicate id\nrule a: match[0]: empty matcher"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func FuzzParseRules(f *testing.F) {
	f.Add(BuiltinYAML())
	f.Add([]byte("symptoms:\n  - id: a\n    title: A\n    files: [x]\n    match: [{lines: {any: ['(?P<ip>x)'], cidr: [10.0.0.0/8]}}, {sequence: {first: a, then: b, within: 1s}}]\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r1, err1 := ParseRules("f.yaml", b)
		r2, err2 := ParseRules("f.yaml", b)
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(r1, r2) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("two parses differ")
		}
		if err1 != nil {
			return
		}
		if _, err := NewEngine(r1); err != nil {
			t.Fatalf("ParseRules accepted rules NewEngine rejects: %v", err)
		}
	})
}

func TestParseDisabled(t *testing.T) {
	doc := `
symptoms:
  - {id: etcd-connection-refused, disabled: true}
  - id: mine
    title: Mine
    files: [build-log.txt]
    match: [{lines: {any: [x]}}]
`
	rules, err := ParseRules("r.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || !rules[0].Disabled || rules[0].ID != "etcd-connection-refused" || rules[0].Source != "r.yaml" || rules[1].Disabled {
		t.Fatalf("parsed %+v", rules)
	}
	// A file of nothing but disabled entries is valid too.
	if rules, err := ParseRules("r.yaml", []byte("symptoms: [{id: upgrade-incomplete, disabled: true}]\n")); err != nil || len(rules) != 1 {
		t.Fatalf("only a disabled entry: %v %+v", err, rules)
	}

	bad := []struct{ doc, want string }{
		{"symptoms:\n  - {id: a, disabled: false}\n", "r.yaml:2: symptoms[0].disabled: bad value \"false\": want true"},
		{"symptoms:\n  - {id: a, disabled: yes please}\n", "r.yaml:2: symptoms[0].disabled: bad value \"yes please\""},
		{"symptoms:\n  - {disabled: true}\n", "r.yaml:2: symptoms[0]: missing id"},
		{"symptoms:\n  - {id: Bad_Id, disabled: true}\n", "r.yaml:2: symptoms[0].id: id \"Bad_Id\" must be lower-case"},
		{"symptoms:\n  - id: a\n    disabled: true\n    files: [x]\n", "r.yaml:4: symptoms[0].files: a disabled entry takes only id and disabled"},
		{"symptoms:\n  - {id: a, disabled: true}\n  - {id: a, disabled: true}\n", "r.yaml:3: symptoms[1].id: duplicate id \"a\" (first at line 2)"},
	}
	for _, tc := range bad {
		_, err := ParseRules("r.yaml", []byte(tc.doc))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.doc, err, tc.want)
		}
	}
}

func TestMergeDisabled(t *testing.T) {
	base := Builtin()
	over, err := ParseRules("off.yaml", []byte("symptoms:\n  - {id: etcd-connection-refused, disabled: true}\n  - {id: no-such-symptom, disabled: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := Merge(base, over)
	if len(got) != len(base)-1 {
		t.Fatalf("%d rules after disabling one of %d", len(got), len(base))
	}
	for _, r := range got {
		if r.ID == "etcd-connection-refused" || r.ID == "no-such-symptom" || r.Disabled {
			t.Errorf("merged rules hold %s (disabled %v)", r.ID, r.Disabled)
		}
	}
	if ids := Unknown(base, over); !reflect.DeepEqual(ids, []string{"no-such-symptom"}) {
		t.Errorf("Unknown = %v", ids)
	}
	// A disabled rule given to an engine directly is left out.
	eng, err := NewEngine(append(Builtin(), over[0]))
	if err != nil {
		t.Fatalf("an engine given a disabled entry: %v", err)
	}
	for _, r := range eng.Rules() {
		if r.Disabled {
			t.Errorf("the engine runs the disabled entry %s", r.ID)
		}
	}
	// The disabled symptom finds nothing: the seed line no longer counts.
	line := "E0112 20:58:46.230 dial tcp 10.0.61.114:2379: connect: connection refused\n"
	for _, tc := range []struct {
		rules []Rule
		want  int
	}{{base, 1}, {got, 0}} {
		eng, err := NewEngine(tc.rules)
		if err != nil {
			t.Fatal(err)
		}
		s := eng.Begin(RunInfo{})
		if err := s.File(t.Context(), "build-log.txt", strings.NewReader(line)); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range s.Matches() {
			if m.Symptom == "etcd-connection-refused" {
				n++
			}
		}
		if n != tc.want {
			t.Errorf("%d rules: etcd-connection-refused found %d times, want %d", len(tc.rules), n, tc.want)
		}
	}
}

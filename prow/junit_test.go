package prow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func TestParseJUnit(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []TestCase
		wantErr error // nil: no error; errAny: any error
	}{
		{"testsuites root",
			`<testsuites><testsuite name="operator"><testcase name="a" time="1.5"/><testcase name="b"><failure message="m">body</failure></testcase></testsuite></testsuites>`,
			[]TestCase{{"operator", "a", StatusPass, 1.5, ""}, {"operator", "b", StatusFail, 0, "m\nbody"}}, nil},
		{"testsuite root",
			`<?xml version="1.0"?><testsuite name="Cluster upgrade"><testcase name="upgrade"></testcase></testsuite>`,
			[]TestCase{{"Cluster upgrade", "upgrade", StatusPass, 0, ""}}, nil},
		{"innermost suite names the case",
			`<testsuites><testsuite name="outer"><testsuite name="inner"><testcase name="a"/></testsuite><testcase name="b"/></testsuite></testsuites>`,
			[]TestCase{{"inner", "a", StatusPass, 0, ""}, {"outer", "b", StatusPass, 0, ""}}, nil},
		{"case outside any suite",
			`<testsuites><testcase name="a"/></testsuites>`,
			[]TestCase{{"", "a", StatusPass, 0, ""}}, nil},
		{"error counts as failure",
			`<testsuite><testcase name="a"><error message="boom" type="Panic"/></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusFail, 0, "boom"}}, nil},
		{"failure beats skipped",
			`<testsuite><testcase name="a"><skipped/><failure>f</failure></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusFail, 0, "f"}}, nil},
		{"skipped",
			`<testsuite><testcase name="a"><skipped message="not today"/></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusSkip, 0, ""}}, nil},
		{"attribute repeated in body is not repeated",
			`<testsuite><testcase name="a"><failure message="same text">  same text </failure></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusFail, 0, "same text"}}, nil},
		{"two failures",
			`<testsuite><testcase name="a"><failure message="one"/><failure message="two">detail</failure></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusFail, 0, "one\ntwo\ndetail"}}, nil},
		{"system-out is not the message",
			`<testsuite><testcase name="a"><failure message="m"/><system-out>noise</system-out><system-err>more</system-err></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusFail, 0, "m"}}, nil},
		{"ANSI in attribute",
			"<testsuite><testcase name=\"a\"><error message=\"\x1b[1m\x1b[38;5;9mYour Test Panicked\x1b[0m\"/></testcase></testsuite>",
			[]TestCase{{"", "a", StatusFail, 0, "Your Test Panicked"}}, nil},
		{"escaped ESC",
			`<testsuite><testcase name="a"><failure message="&#x1b;[31mred&#27;[0m"/></testcase></testsuite>`,
			[]TestCase{{"", "a", StatusFail, 0, "red"}}, nil},
		{"garbage times",
			`<testsuite><testcase name="a" time="1e999"/><testcase name="b" time="abc"/><testcase name="c" time="-1"/><testcase name="d" time=" 2.5 "/><testcase name="e" time="NaN"/><testcase name="f" time="1,5"/></testsuite>`,
			[]TestCase{{"", "a", StatusPass, 0, ""}, {"", "b", StatusPass, 0, ""}, {"", "c", StatusPass, 0, ""}, {"", "d", StatusPass, 2.5, ""}, {"", "e", StatusPass, 0, ""}, {"", "f", StatusPass, 0, ""}}, nil},
		{"NUL and broken UTF-8 are tolerated",
			"<testsuite><testcase name=\"a\x00b\"><failure>x\xffy&#0;</failure></testcase></testsuite>",
			[]TestCase{{"", "ab", StatusFail, 0, "x\uFFFDy"}}, nil},
		{"HTML entity",
			`<testsuite><testcase name="a&nbsp;b"/></testsuite>`,
			[]TestCase{{"", "a\u00a0b", StatusPass, 0, ""}}, nil},
		{"namespaced elements",
			`<j:testsuite xmlns:j="urn:x"><j:testcase name="a"/></j:testsuite>`,
			[]TestCase{{"", "a", StatusPass, 0, ""}}, nil},
		{"empty document", ``, nil, ErrNotJUnit},
		{"only a declaration", `<?xml version="1.0"?>`, nil, ErrNotJUnit},
		{"HTML error page", `<html><body>404</body></html>`, nil, ErrNotJUnit},
		{"truncated keeps what came before",
			`<testsuite name="s"><testcase name="a"/><testcase name="b"><failure>cut he`,
			[]TestCase{{"s", "a", StatusPass, 0, ""}}, errAny},
		{"mismatched tags", `<testsuite><testcase name="a"></testsuite>`, nil, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJUnit(strings.NewReader(tt.in))
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantErr == errAny && err == nil, tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// errAny stands for "some error" in test tables.
var errAny = errors.New("any error")

func TestParseJUnitDepth(t *testing.T) {
	nested := func(depth int) string {
		return "<testsuites>" + strings.Repeat("<testsuite>", depth-2) + `<testcase name="deep"/>` +
			strings.Repeat("</testsuite>", depth-2) + "</testsuites>"
	}
	if cases, err := ParseJUnit(strings.NewReader(nested(maxJUnitDepth))); err != nil || len(cases) != 1 {
		t.Fatalf("depth %d: %v, %d cases", maxJUnitDepth, err, len(cases))
	}
	if _, err := ParseJUnit(strings.NewReader(nested(maxJUnitDepth + 1))); err == nil {
		t.Fatalf("depth %d accepted", maxJUnitDepth+1)
	}
	// A million open elements must fail fast, not exhaust the stack.
	if _, err := ParseJUnit(strings.NewReader(strings.Repeat("<testsuite>", 1_000_000))); err == nil {
		t.Fatal("hostile nesting accepted")
	}
}

func TestParseJUnitReadSizes(t *testing.T) {
	for _, name := range testdataFiles(t, "junit*.xml") {
		t.Run(name, func(t *testing.T) {
			b := readTestdata(t, name)
			want, err := ParseJUnit(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseJUnit(iotest.OneByteReader(bytes.NewReader(b)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("one byte at a time gives a different answer")
			}
		})
	}
}

func TestParseJUnitMessageCap(t *testing.T) {
	body := strings.Repeat("é", maxCaseMessage) // twice the cap in bytes
	cases, err := ParseJUnit(strings.NewReader(`<testsuite><testcase name="a"><failure>` + body + `</failure></testcase></testsuite>`))
	if err != nil {
		t.Fatal(err)
	}
	if m := cases[0].Message; len(m) > maxCaseMessage || !utf8.ValidString(m) {
		t.Fatalf("message of %d bytes, valid UTF-8 %v", len(m), utf8.ValidString(m))
	}
}

func TestParseJUnitReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`<testsuite><testcase name="a"/>`), iotest.ErrReader(io.ErrUnexpectedEOF))
	cases, err := ParseJUnit(r)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(cases) != 1 {
		t.Fatalf("got %d cases, %v", len(cases), err)
	}
}

func FuzzParseJUnit(f *testing.F) {
	addSeeds(f, "junit*.xml")
	f.Add([]byte(`<testsuites><testsuite name="s"><testcase name="a"><failure message="m">b</failure></testcase><testcase name="a"/></testsuite></testsuites>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cases, err := ParseJUnit(bytes.NewReader(b))
		cases2, err2 := ParseJUnit(iotest.HalfReader(bytes.NewReader(b)))
		if fmt.Sprint(err) != fmt.Sprint(err2) || !reflect.DeepEqual(cases, cases2) {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
		for _, c := range cases {
			if c.Status != StatusPass && c.Status != StatusFail && c.Status != StatusSkip {
				t.Fatalf("testcase status %q", c.Status)
			}
			if c.Duration < 0 || math.IsNaN(c.Duration) || math.IsInf(c.Duration, 0) {
				t.Fatalf("duration %v", c.Duration)
			}
			if !utf8.ValidString(c.Name) || !utf8.ValidString(c.Message) || len(c.Message) > maxCaseMessage {
				t.Fatalf("bad text in %+v", c)
			}
		}
		checkMerged(t, cases, MergeTests(cases))
	})
}

// checkMerged checks the invariants of MergeTests' output for cases.
func checkMerged(t *testing.T, cases []TestCase, results []TestResult) {
	t.Helper()
	// Every nameless case is a test of its own, named as MergeTests names it.
	keys := map[testKey]bool{}
	nameless := map[string]int{}
	for _, c := range cases {
		k := testKey{c.Suite, c.Name}
		if c.Name == "" {
			nameless[c.Suite]++
			k.name = fmt.Sprintf("(no name #%d)", nameless[c.Suite])
		}
		keys[k] = true
	}
	if len(results) != len(keys) {
		t.Fatalf("%d results for %d distinct tests", len(results), len(keys))
	}
	for i, r := range results {
		switch r.Status {
		case StatusPass, StatusFail, StatusFlake, StatusSkip:
		default:
			t.Fatalf("result status %q", r.Status)
		}
		if len(r.Message) > MaxMessage || !utf8.ValidString(r.Message) {
			t.Fatalf("message of %d bytes", len(r.Message))
		}
		if (r.Status == StatusPass || r.Status == StatusSkip) && r.Message != "" {
			t.Fatalf("%s test with a message", r.Status)
		}
		if i > 0 {
			p := results[i-1]
			if p.Suite > r.Suite || (p.Suite == r.Suite && p.Name >= r.Name) {
				t.Fatalf("results not sorted or not unique at %d", i)
			}
		}
	}
}

// junitE2E builds a JUnit document shaped like openshift-tests'
// junit_e2e_*.xml, of at least size bytes: thousands of testcases, some
// skipped, some failed with multi-line bodies, and a few coloured ones.
func junitE2E(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<testsuite name="openshift-tests" tests="0" skipped="0" failures="0" time="5012.7">` + "\n")
	for i := 0; b.Len() < size; i++ {
		name := fmt.Sprintf("[sig-network] Services should be able to switch session affinity for service with type clusterIP %d [LinuxOnly] [Conformance] [Suite:openshift/conformance/parallel/minimal] [Suite:k8s]", i)
		switch {
		case i%50 == 0:
			fmt.Fprintf(&b, "<testcase name=%q time=\"%d.%03d\"><failure message=\"\x1b[1mfail [k8s.io/kubernetes/test/e2e/network/service.go:%d]\x1b[0m: Unexpected error\">", name, i%300, i%1000, i)
			for j := range 40 {
				fmt.Fprintf(&b, "Sep  1 05:%02d:%02d.%03d: INFO: At 2023-09-01 05:31:02 +0000 UTC - event for pod-%d: {kubelet ip-10-0-61-114.ec2.internal} FailedCreatePodSandBox: dial tcp 10.128.2.%d:8080: i/o timeout &amp; more\n", j%60, i%60, i%1000, i, j)
			}
			b.WriteString("</failure><system-out>INFO: Running AfterSuite actions on all nodes</system-out></testcase>\n")
		case i%7 == 0:
			fmt.Fprintf(&b, "<testcase name=%q time=\"0\"><skipped message=\"skipped: not supported on this platform\"></skipped></testcase>\n", name)
		default:
			fmt.Fprintf(&b, "<testcase name=%q time=\"%d.%06d\"></testcase>\n", name, i%120, i)
		}
	}
	b.WriteString("</testsuite>\n")
	return b.Bytes()
}

func BenchmarkParseJUnit(b *testing.B) {
	data := junitE2E(5 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		cases, err := ParseJUnit(bytes.NewReader(data))
		if err != nil || len(cases) == 0 {
			b.Fatalf("%d cases, %v", len(cases), err)
		}
	}
}

func TestParseJUnitDroppedBytes(t *testing.T) {
	// Long runs of bytes that the cleaning readers drop must not look like
	// a source that makes no progress.
	junk := strings.Repeat("\x00", 300) + strings.Repeat("\x1b[0m", 300)
	cases, err := ParseJUnit(iotest.OneByteReader(strings.NewReader(`<testsuite>` + junk + `<testcase name="a"/></testsuite>`)))
	if err != nil || len(cases) != 1 {
		t.Fatalf("%d cases, %v", len(cases), err)
	}
}

func BenchmarkParseJUnitSmall(b *testing.B) {
	data := []byte(`<testsuite name="s"><testcase name="a" time="1"/><testcase name="b"><failure message="m">x</failure></testcase></testsuite>`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJUnit(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

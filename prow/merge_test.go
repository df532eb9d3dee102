package prow

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMergeTests(t *testing.T) {
	pass := func(suite, name string, d float64) TestCase { return TestCase{suite, name, StatusPass, d, ""} }
	fail := func(suite, name string, d float64, msg string) TestCase {
		return TestCase{suite, name, StatusFail, d, msg}
	}
	skip := func(suite, name string) TestCase { return TestCase{suite, name, StatusSkip, 0, ""} }
	tests := []struct {
		name  string
		files [][]TestCase // the JUnit files of one run
		want  []TestResult
	}{
		{"flake within one file (origin's passing duplicate)",
			[][]TestCase{{fail("Cluster upgrade", "alerts", 4674.9, "Unexpected alert"), pass("Cluster upgrade", "upgrade", 4452), pass("Cluster upgrade", "alerts", 4674.9)}},
			[]TestResult{{"Cluster upgrade", "alerts", StatusFlake, 4674.9, "Unexpected alert"}, {"Cluster upgrade", "upgrade", StatusPass, 4452, ""}}},
		{"flake across two files (a retry)",
			[][]TestCase{{fail("openshift-tests", "must-gather", 86.7, "exit status 1")}, {pass("openshift-tests", "must-gather", 79)}},
			[]TestResult{{"openshift-tests", "must-gather", StatusFlake, 86.7, "exit status 1"}}},
		{"failed every time",
			[][]TestCase{{fail("s", "t", 1, "first")}, {fail("s", "t", 3, "second")}},
			[]TestResult{{"s", "t", StatusFail, 3, "first"}}},
		{"first failure with a message",
			[][]TestCase{{fail("s", "t", 1, "")}, {fail("s", "t", 1, "second")}},
			[]TestResult{{"s", "t", StatusFail, 1, "second"}}},
		{"passed and skipped is a pass",
			[][]TestCase{{skip("s", "t")}, {pass("s", "t", 2)}},
			[]TestResult{{"s", "t", StatusPass, 2, ""}}},
		{"only skipped",
			[][]TestCase{{skip("s", "t")}, {skip("s", "t")}},
			[]TestResult{{"s", "t", StatusSkip, 0, ""}}},
		{"skipped and failed is a failure",
			[][]TestCase{{skip("s", "t"), fail("s", "t", 0, "m")}},
			[]TestResult{{"s", "t", StatusFail, 0, "m"}}},
		{"same name in two suites stays apart",
			[][]TestCase{{fail("a", "t", 0, "m"), pass("b", "t", 0)}},
			[]TestResult{{"a", "t", StatusFail, 0, "m"}, {"b", "t", StatusPass, 0, ""}}},
		{"sorted by suite then name",
			[][]TestCase{{pass("z", "a", 0), pass("", "b", 0), pass("a", "c", 0), pass("a", "b", 0)}},
			[]TestResult{{"", "b", StatusPass, 0, ""}, {"a", "b", StatusPass, 0, ""}, {"a", "c", StatusPass, 0, ""}, {"z", "a", StatusPass, 0, ""}}},
		{"nothing", nil, []TestResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cases []TestCase
			for _, f := range tt.files {
				cases = append(cases, f...)
			}
			got := MergeTests(cases)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			checkMerged(t, cases, got)
		})
	}
}

func TestMergeTestsMessageCap(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{"ascii", strings.Repeat("x", MaxMessage+1)},
		{"two-byte runes", strings.Repeat("é", MaxMessage)},
		{"three-byte runes", strings.Repeat("✓", MaxMessage)},
		{"four-byte runes", strings.Repeat("𝔘", MaxMessage)},
		{"rune across the cut", strings.Repeat("x", MaxMessage-len(ellipsis)-1) + "✓✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MergeTests([]TestCase{{Name: "t", Status: StatusFail, Message: tt.msg}})[0].Message
			if len(got) > MaxMessage || !utf8.ValidString(got) || !strings.HasSuffix(got, ellipsis) {
				t.Fatalf("%d bytes, valid %v, suffix %q", len(got), utf8.ValidString(got), got[max(len(got)-8, 0):])
			}
			if !strings.HasPrefix(tt.msg, strings.TrimSuffix(got, ellipsis)) {
				t.Fatal("the kept text is not a prefix of the message")
			}
			if len(got) < MaxMessage-utf8.UTFMax {
				t.Fatalf("cut too much: %d bytes", len(got))
			}
		})
	}
	exact := strings.Repeat("é", MaxMessage/2)
	if got := MergeTests([]TestCase{{Name: "t", Status: StatusFail, Message: exact}})[0].Message; got != exact {
		t.Fatal("a message of exactly MaxMessage bytes was cut")
	}
}

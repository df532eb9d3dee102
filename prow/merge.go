package prow

import (
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"
)

// MaxMessage is the most bytes of failure text MergeTests keeps per test,
// ellipsis included.
const MaxMessage = 4096

// ellipsis marks a message that MergeTests cut.
const ellipsis = "…"

// TestResult is the outcome of one test in one run, merged over every JUnit
// file of the run.
type TestResult struct {
	// Suite and Name identify the test.
	Suite, Name string
	// Status is StatusPass, StatusFail, StatusFlake or StatusSkip.
	Status TestStatus
	// Duration is the longest duration seen, in seconds.
	Duration float64
	// Message is the first failure's text, at most MaxMessage bytes; empty
	// for tests that did not fail.
	Message string
}

type testKey struct{ suite, name string }

type testTally struct {
	failed, passed bool
	duration       float64
	message        string
}

// MergeTests folds the testcases of all JUnit files of one run into one
// result per (Suite, Name), as Sippy does: a test that failed and passed is
// a flake (origin writes a passing duplicate on purpose for flaky tests), one
// that only failed is a failure, one that passed at least once is a pass, and
// one that was only skipped is a skip. Results are sorted by Suite, then Name.
//
// A case without a name is a test of its own, never merged with another: it
// is named "(no name #N)", N counting the nameless cases of its suite in the
// order given, so that each keeps its status and duration.
func MergeTests(cases []TestCase) []TestResult {
	tallies := make(map[testKey]*testTally)
	nameless := make(map[string]int) // by suite
	for _, c := range cases {
		k := testKey{c.Suite, c.Name}
		if c.Name == "" {
			nameless[c.Suite]++
			k.name = fmt.Sprintf("(no name #%d)", nameless[c.Suite])
		}
		t := tallies[k]
		if t == nil {
			t = &testTally{}
			tallies[k] = t
		}
		t.duration = max(t.duration, c.Duration)
		switch c.Status {
		case StatusFail:
			t.failed = true
			if t.message == "" {
				t.message = c.Message
			}
		case StatusPass:
			t.passed = true
		case StatusFlake:
			t.failed, t.passed = true, true
			if t.message == "" {
				t.message = c.Message
			}
		}
	}
	results := make([]TestResult, 0, len(tallies))
	for k, t := range tallies {
		r := TestResult{Suite: k.suite, Name: k.name, Duration: t.duration}
		switch {
		case t.failed && t.passed:
			r.Status = StatusFlake
		case t.failed:
			r.Status = StatusFail
		case t.passed:
			r.Status = StatusPass
		default:
			r.Status = StatusSkip
		}
		if t.failed {
			r.Message = truncateUTF8(t.message, MaxMessage, ellipsis)
		}
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b TestResult) int {
		return cmp.Or(cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Name, b.Name))
	})
	return results
}

// truncateUTF8 returns s if it fits in limit bytes; otherwise its longest
// prefix that ends on a rune boundary and leaves room for mark, then mark.
func truncateUTF8(s string, limit int, mark string) string {
	if len(s) <= limit {
		return s
	}
	cut := max(limit-len(mark), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

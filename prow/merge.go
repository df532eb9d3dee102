package prow

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
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

// MaxRunTests is how many tests of one run are kept whatever their
// outcome: artifact.Read's default cap, given to NewMerger. A real
// openshift-tests junit_e2e file holds 3,000 to 8,000 cases and a run has
// a few JUnit files, so a run past 100,000 tests is a runaway or hostile
// writer, not a bigger test suite; a test's row costs a few hundred bytes
// in memory and in the database, so the cap holds a run to tens of MiB.
// Past it, failures and flakes are still kept (up to MaxRunTests more of
// them): a run's failing tests are what the analysis reads, and passes it
// can do without.
const MaxRunTests = 100_000

// droppedNamesPerTest bounds, as a multiple of the cap, how many names of
// passing tests left out past the cap a Merger remembers (as 64-bit
// hashes, 8 bytes and the map's overhead each), so that a failure of the
// same name later in the run is known to be a flake. A passing duplicate
// after its failure (origin writes them so) needs no memory at all: the
// failure is kept.
const droppedNamesPerTest = 10

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
//
// MergeTests keeps every test; a Merger folds cases one at a time, within a
// cap.
func MergeTests(cases []TestCase) []TestResult {
	m := NewMerger(0)
	for _, c := range cases {
		m.Add(c)
	}
	return m.Results()
}

// Merger folds the testcases of one run into results as MergeTests does,
// one case at a time, so that a run's cases need never be held together,
// and within a cap on the tests it keeps.
type Merger struct {
	limit    int // tests kept whatever their outcome; 0: no cap
	tallies  map[testKey]*testTally
	nameless map[string]int // by suite
	// Past the cap: the hashes of the names of passing tests left out
	// (see droppedNamesPerTest), and what was left out.
	seed            maphash.Seed
	passedOut       map[uint64]struct{}
	droppedCases    int // cases of tests not kept
	droppedFailures int // of them, failed cases (past twice the cap)
	forgotten       bool
}

// NewMerger returns a Merger that keeps every test up to limit tests, and
// past it only the tests that failed (and so may be flakes), up to limit
// more of them. limit 0 keeps every test.
func NewMerger(limit int) *Merger {
	return &Merger{limit: max(limit, 0), tallies: make(map[testKey]*testTally), nameless: make(map[string]int),
		seed: maphash.MakeSeed(), passedOut: make(map[uint64]struct{})}
}

// Add folds one testcase in.
func (m *Merger) Add(c TestCase) {
	k := testKey{c.Suite, c.Name}
	if c.Name == "" {
		m.nameless[c.Suite]++
		k.name = fmt.Sprintf("(no name #%d)", m.nameless[c.Suite])
	}
	failed := c.Status == StatusFail || c.Status == StatusFlake
	t := m.tallies[k]
	if t == nil {
		if m.limit > 0 && len(m.tallies) >= m.limit && (!failed || len(m.tallies) >= 2*m.limit) {
			m.leaveOut(k, c, failed)
			return
		}
		t = &testTally{}
		m.tallies[k] = t
		if failed && m.limit > 0 && len(m.tallies) > m.limit {
			// A failure past the cap: a flake if it passed before.
			if _, ok := m.passedOut[m.hash(k)]; ok {
				t.passed = true
			}
		}
	}
	t.duration = max(t.duration, c.Duration)
	switch c.Status {
	case StatusFail:
		t.failed = true
	case StatusPass:
		t.passed = true
	case StatusFlake:
		t.failed, t.passed = true, true
	}
	if failed && t.message == "" {
		// Cut now, and copied, so that a long text is not held whole.
		t.message = strings.Clone(truncateUTF8(c.Message, MaxMessage, ellipsis))
	}
}

// leaveOut counts a case of a test not kept, and remembers the name of one
// that passed while there is room.
func (m *Merger) leaveOut(k testKey, c TestCase, failed bool) {
	m.droppedCases++
	if failed {
		m.droppedFailures++
		return
	}
	if c.Status != StatusPass {
		return
	}
	if len(m.passedOut) < droppedNamesPerTest*m.limit {
		m.passedOut[m.hash(k)] = struct{}{}
	} else {
		m.forgotten = true
	}
}

func (m *Merger) hash(k testKey) uint64 {
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(k.suite)
	h.WriteByte(0)
	h.WriteString(k.name)
	return h.Sum64()
}

// Dropped says what the cap left out: cases of tests not kept (passed or
// skipped past the cap, and failed past twice the cap), how many of them
// failed, and whether names of passing tests left out were too many to
// remember (a later failure of one of them counts as a failure, not as a
// flake). All zero when nothing was left out.
func (m *Merger) Dropped() (cases, failures int, forgotten bool) {
	return m.droppedCases, m.droppedFailures, m.forgotten
}

// Results returns one result per test kept, sorted by Suite, then Name.
func (m *Merger) Results() []TestResult {
	results := make([]TestResult, 0, len(m.tallies))
	for k, t := range m.tallies {
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
			r.Message = t.message
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

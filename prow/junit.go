package prow

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// TestStatus is the outcome of a test in a run.
type TestStatus string

// Test outcomes. A single JUnit testcase is only ever StatusPass,
// StatusFail or StatusSkip; StatusFlake is what MergeTests concludes when a
// test both failed and passed in one run.
const (
	StatusPass  TestStatus = "pass"
	StatusFail  TestStatus = "fail"
	StatusFlake TestStatus = "flake"
	StatusSkip  TestStatus = "skip"
)

// TestCase is one <testcase> of a JUnit file.
type TestCase struct {
	// Suite is the name of the innermost <testsuite> around the case; it
	// may be empty.
	Suite string
	// Name is the testcase's name attribute. Some writers leave it out
	// (kettle keeps such a file among its malformed examples); MergeTests
	// keeps each nameless case as a test of its own.
	Name string
	// Status is StatusPass, StatusFail (a <failure> or an <error>) or
	// StatusSkip (<skipped> and no failure).
	Status TestStatus
	// Duration is the time attribute in seconds; 0 when it is missing or
	// not a finite, non-negative number.
	Duration float64
	// Message is the failure text: each <failure> or <error>'s message
	// attribute and body, trimmed, one after the other. At most
	// maxCaseMessage bytes are kept.
	Message string
}

// ErrNamelessCases reports testcases without a name attribute. ParseJUnit
// returns them all the same, with an error that counts them.
var ErrNamelessCases = errors.New("test cases without a name")

// ErrNotJUnit reports a document that is empty or whose root element is
// neither <testsuites> nor <testsuite>. Crawlers pick JUnit files by name,
// and some files named like one are not.
var ErrNotJUnit = errors.New("not a JUnit document")

const (
	// maxJUnitDepth is how deeply elements may nest. Real files use three
	// or four levels; more is hostile input.
	maxJUnitDepth = 64
	// maxCaseMessage bounds the failure text kept per testcase, so that a
	// hostile or runaway file cannot make one string of its whole size.
	// It is far above what evidence matching needs.
	maxCaseMessage = 1 << 20
)

// element kinds on the parser's stack.
type junitElem uint8

const (
	elemOther junitElem = iota
	elemSuite
	elemCase
	elemFailure
)

// ParseJUnit reads a JUnit XML document from r and returns its testcases in
// document order. The root may be <testsuites> or <testsuite>, and suites
// may nest. It is ScanJUnit collecting the cases: its memory grows with
// the results; ScanJUnit's does not.
//
// On error, the testcases read before the error are returned with it: a
// truncated upload still yields its first results.
func ParseJUnit(r io.Reader) ([]TestCase, error) {
	var cases []TestCase
	err := ScanJUnit(r, func(c TestCase) { cases = append(cases, c) })
	return cases, err
}

// cleanBuffers are the buffers of the readers that clean a JUnit file on
// its way to the decoder (see ScanJUnit). A run has a JUnit file per step,
// most of a few KiB: buffers of their own would be most of what a crawl
// allocates.
type cleanBuffers struct {
	chars, charsOut, ansi, ansiOut []byte
}

var junitBuffers = sync.Pool{New: func() any {
	return &cleanBuffers{
		chars: make([]byte, xmlCharChunk), charsOut: make([]byte, 0, xmlCharChunk),
		ansi: make([]byte, ansiReaderChunk), ansiOut: make([]byte, 0, ansiReaderChunk+2*maxCSIParams),
	}
}}

// ScanJUnit reads a JUnit XML document from r and gives each testcase to
// each as soon as it ends, in document order. r is read as a stream: ANSI
// escape sequences (and what a writer left of them after replacing their
// ESC by U+FFFD), control bytes and invalid UTF-8 are cleaned on the way
// in (see NewANSIStripper), and the document is decoded token by token, so
// that its memory is that of one testcase, whatever the file holds.
//
// On error, the testcases before the error have been given to each: a
// truncated upload still yields its first results. A document whose root
// is not JUnit's gives none.
func ScanJUnit(r io.Reader, each func(TestCase)) error {
	bufs := junitBuffers.Get().(*cleanBuffers)
	defer junitBuffers.Put(bufs)
	clean := &ansiReader{r: &xmlCharReader{r: r, in: bufs.chars, buf: bufs.charsOut},
		f: ansiFilter{residue: true}, in: bufs.ansi, buf: bufs.ansiOut}
	dec := xml.NewDecoder(clean)
	dec.Entity = xml.HTMLEntity
	// The stream is cleaned to UTF-8 before the decoder sees the encoding
	// declaration, so whatever a file declares it is read as UTF-8.
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }

	p := junitParser{each: each}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if !p.root {
				return fmt.Errorf("parse junit: no root element: %w", ErrNotJUnit)
			}
			if p.nameless > 0 {
				return fmt.Errorf("parse junit: %d %w, each kept as a test of its own", p.nameless, ErrNamelessCases)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse junit: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t); err != nil {
				return fmt.Errorf("parse junit: %w", err)
			}
		case xml.CharData:
			p.text(t)
		case xml.EndElement:
			p.end()
		}
	}
}

// junitParser holds the state of ScanJUnit between tokens. The decoder
// checks that elements balance, so end always has a start to match.
type junitParser struct {
	each     func(TestCase) // takes each testcase as it ends
	nameless int            // cases without a name
	stack    []junitElem
	suites   []string // names of the open <testsuite> elements
	root     bool     // the root element was seen
	inCase   bool     // cur is an open <testcase>
	cur      TestCase
	skipped  bool     // cur has a <skipped>
	parts    []string // failure texts of cur
	msgAttr  string   // message attribute of the open <failure> or <error>
	body     []byte   // text of the open <failure> or <error>
}

func (p *junitParser) start(t xml.StartElement) error {
	if len(p.stack) >= maxJUnitDepth {
		return fmt.Errorf("elements nested more than %d deep", maxJUnitDepth)
	}
	name := t.Name.Local
	if len(p.stack) == 0 {
		if name != "testsuites" && name != "testsuite" {
			return fmt.Errorf("root element <%s>: %w", name, ErrNotJUnit)
		}
		p.root = true
	}
	kind := elemOther
	switch {
	case name == "testsuite" && !p.inCase:
		kind = elemSuite
		p.suites = append(p.suites, strings.TrimSpace(attr(t, "name")))
	case name == "testcase" && !p.inCase:
		kind = elemCase
		p.inCase, p.skipped, p.parts = true, false, p.parts[:0]
		p.cur = TestCase{Name: strings.TrimSpace(attr(t, "name")), Status: StatusPass, Duration: seconds(attr(t, "time"))}
		if p.cur.Name == "" {
			p.nameless++
		}
		if len(p.suites) > 0 {
			p.cur.Suite = p.suites[len(p.suites)-1]
		}
	case (name == "failure" || name == "error") && p.stack[len(p.stack)-1] == elemCase:
		kind = elemFailure
		p.cur.Status = StatusFail
		p.msgAttr, p.body = attr(t, "message"), p.body[:0]
	case name == "skipped" && p.inCase:
		p.skipped = true
	}
	p.stack = append(p.stack, kind)
	return nil
}

func (p *junitParser) text(b []byte) {
	if len(p.stack) > 0 && p.stack[len(p.stack)-1] == elemFailure && len(p.body) < maxCaseMessage {
		p.body = append(p.body, b...)
	}
}

func (p *junitParser) end() {
	kind := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	switch kind {
	case elemSuite:
		p.suites = p.suites[:len(p.suites)-1]
	case elemFailure:
		text := failureText(p.msgAttr, string(p.body))
		// A second <failure> or <error> with a text already kept adds nothing.
		if text != "" && !slices.ContainsFunc(p.parts, func(s string) bool { return containsText(s, text) }) {
			p.parts = append(p.parts, text)
		}
	case elemCase:
		if p.cur.Status != StatusFail && p.skipped {
			p.cur.Status = StatusSkip
		}
		p.cur.Message = truncateUTF8(strings.Join(p.parts, "\n"), maxCaseMessage, "")
		p.each(p.cur)
		p.inCase = false
	}
}

// attr returns the value of the attribute called name, or "".
func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// seconds parses a time attribute. Writers put anything there, including
// values that overflow a float64; those count as unknown (0).
func seconds(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return f
}

// failureText joins a failure's message attribute and body. Many writers
// put the same text in both (origin puts a coloured copy in the attribute
// and the plain text, with a stack trace after it, in the body), so a text
// contained in the other, whitespace aside, is not repeated.
func failureText(message, body string) string {
	message, body = strings.TrimSpace(message), strings.TrimSpace(body)
	switch {
	case message == "" || containsText(body, message):
		return body
	case body == "" || containsText(message, body):
		return message
	}
	return message + "\n" + body
}

// containsText reports whether s contains sub when runs of white space
// count as one space: an attribute's line breaks arrive as "&#xA;" or, not
// escaped, as spaces, and the body's as they were written.
func containsText(s, sub string) bool {
	if strings.Contains(s, sub) {
		return true
	}
	return strings.Contains(strings.Join(strings.Fields(s), " "), strings.Join(strings.Fields(sub), " "))
}

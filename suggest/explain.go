package suggest

import (
	"context"
	"strings"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/prow"
)

// coverage is whether an active rule matches a failed test's message.
type coverage uint8

const (
	coverUnknown coverage = iota
	coverNone             // no active rule matches it
	coverRule             // an active rule matches it
)

// coverFile is the name a failed test's message is matched under: a JUnit
// file, as the rules that read failure messages name them.
const coverFile = "artifacts/junit/junit_suggest.xml"

// open reports whether a template is a failure no active rule names in any
// run: a failed test's message, or name, that no active rule matches. A
// log line is not: a run a symptom explains has its log lines explained
// with it, since a cause is seldom on one line. Without rules, nothing is
// open.
func (c *Collector) open(tp *template) bool {
	if tp.kind != KindJUnit || c.opts.Rules == nil {
		return false
	}
	if tp.cover == coverUnknown {
		tp.cover = coverNone
		if ruleMatches(c.opts.Rules, tp) {
			tp.cover = coverRule
		}
	}
	return tp.cover == coverNone
}

// ruleMatches runs the rules over a template's examples as a crawl would
// see them: the test failed in the run's merged results, and its failure
// written in a JUnit file.
func ruleMatches(eng *classify.Engine, tp *template) bool {
	type failure struct{ name, msg string }
	var fs []failure
	for _, ex := range tp.example {
		if !tp.byName {
			fs = append(fs, failure{tp.test, ex})
			continue
		}
		// A test is explained by its name, or by a message it failed
		// with: a rule that names that failure names the test's.
		fs = append(fs, failure{ex, ""})
		for _, m := range tp.messages {
			fs = append(fs, failure{ex, m})
		}
	}
	for _, f := range fs {
		name, msg := f.name, f.msg
		s := eng.Begin(classify.RunInfo{Tests: []prow.TestResult{{Name: name, Status: prow.StatusFail, Message: msg}}})
		var b strings.Builder
		b.WriteString("<testsuite name=\"suggest\" tests=\"1\" failures=\"1\">\n<testcase name=\"")
		b.WriteString(xmlEscaper.Replace(name))
		b.WriteString("\">\n<failure message=\"")
		b.WriteString(xmlEscaper.Replace(strings.ReplaceAll(msg, "\n", " ")))
		b.WriteString("\">")
		b.WriteString(xmlEscaper.Replace(msg))
		b.WriteString("</failure>\n</testcase>\n</testsuite>\n")
		if eng.Wants(coverFile) {
			// A rule's error on this text is no match: the text is the
			// collector's own, never a file's.
			_ = s.File(context.Background(), coverFile, strings.NewReader(b.String()))
		}
		if len(s.Matches()) > 0 {
			return true
		}
	}
	return false
}

// xmlEscaper escapes text as encoding/xml writes it, but for line breaks,
// which JUnit writers keep in a failure's body.
var xmlEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", "'", "&#39;")

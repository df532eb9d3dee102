// Package report renders the analysis for people and scripts: the verdict
// table (an aligned terminal table, CSV, JSON, Markdown, or one
// self-contained HTML page with inline SVG charts), the UpgradeBlocker
// assessment of one symptom (who is impacted, what is the impact, is it a
// regression, does it look like a flake) and the blocked-edges drafts, in
// plain words with numbers; and the regressions opened and closed, and what
// classify, status, search and suggest found.
//
// Every exported function is a writer: a value in (an analyze.Table, which
// analyze.LoadTable computes; an assess.Assessment, which assess.Assess
// decides; an analyze.Status), bytes to an io.Writer out. The package reads
// no database, writes no SQL, computes no analysis and decides no answer:
// the rates, p-values and verdicts are analyze's, the answers and their
// words assess's. It holds no context, which every read and every analysis
// takes; make deps checks that.
package report

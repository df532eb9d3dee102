// Package report renders the analysis for people and scripts: the verdict
// table (an aligned terminal table, CSV, JSON, Markdown, or one
// self-contained HTML page with inline SVG charts) and the UpgradeBlocker
// assessment of one symptom (who is impacted, what is the impact, is it a
// regression, does it look like a flake), in plain words with numbers.
//
// Apart from LoadStatus, which reads what `prowcrawl status` shows, every
// function is pure: a value in (analyze.Table, computed by
// analyze.LoadTable; the numbers of a symptom, read by analyze.LoadSymptom),
// bytes to an io.Writer out. The package reads no database, writes no SQL
// and computes no analysis: the rates, p-values and verdicts are analyze's.
package report

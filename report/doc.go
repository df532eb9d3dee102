// Package report renders the analysis for people and scripts: the verdict
// table (an aligned terminal table, CSV, JSON, Markdown, or one
// self-contained HTML page with inline SVG charts) and the UpgradeBlocker
// assessment of one symptom (who is impacted, what is the impact, is it a
// regression, does it look like a flake), in plain words with numbers.
//
// Load and LoadAssessment read what a report needs through package db; every
// other function is pure: data in, bytes to an io.Writer out. The package
// writes no SQL and computes no statistics: the rates, p-values and verdicts
// are analyze's, as stored.
package report

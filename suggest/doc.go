// Package suggest proposes new symptoms: it finds what the failed runs
// share that no rule names, and writes each finding as a rule in the
// rules-file format of package classify, ready to be edited and passed to
// reclassify --rules.
//
// It takes failure texts (the failure messages of failed tests, and the
// error-like lines of a run's logs), normalises each (Normalize), groups the
// texts that then read the same into templates, groups near-duplicate
// templates into clusters (MinHash signatures, banded for candidates, then
// a token edit distance on the candidates only), ranks the clusters by how
// much more often they occur where no rule explains them (failed runs no
// symptom explains; any failed run, for a failed test's message no active
// rule matches) than in passed runs (the one-sided Fisher exact test of
// package stats, overall and per upgrade edge), and builds a rule from each
// cluster's common literal text.
//
// It is pure: texts and runs in, proposals out. It must not open files,
// reach a network or touch a database; the command gathers its input from
// the database and the artifact cache. Memory is bounded by the number of
// distinct templates kept (Options.MaxTemplates), not by the number of
// texts, which stream through Collector.Add.
package suggest

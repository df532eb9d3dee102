// Package analyze turns the crawled runs into numbers a release engineer can
// act on: for every active symptom and scope (a job, an upgrade edge, a
// variant of an edge) its rate, and a verdict on whether it is a regression
// or a flake, against the same-shaped edge one release earlier and against
// the weeks before; and per test and scope, its flake rate.
//
// Compute and Run load one analysis: the counts of one snapshot, summed
// into scope keys, with the windows and the options; its verdicts, rates,
// disruption comparisons and the regressions' lifecycle are computed from
// those same counts.
//
// The statistics (Fisher's exact test, in package stats) and the verdict rules are pure
// functions of counts. The counting is done by SQLite, through package db,
// which is the only package that speaks SQL; the analysis never reads a run
// row by row.
//
// Window computes the analysis live for a Selection of runs (jobs, times,
// thresholds), storing nothing. LoadTable, LoadSymptom and LoadStatus read
// what a page shows beside those numbers (the open regressions, a symptom's
// runs and examples, what is stored): the values that package assess
// decides from and package report renders. analyze knows neither.
package analyze

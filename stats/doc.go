// Package stats holds the statistical tests that the analysis of symptom
// rates and the proposal of new symptoms share: Fisher's exact test on a
// 2x2 table of counts.
//
// It is pure arithmetic on counts: no I/O, no storage, no knowledge of runs
// or symptoms, so that both analyze (which reads through db) and suggest
// (which must not) can use it and say the same p-value for the same table.
package stats

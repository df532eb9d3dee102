// Package prowcrawl is the domain every other package speaks: the nouns of
// a crawl (Job, Run, Record and what a run holds), the one derivation of a
// run's edge and variant keys (JobFromName, RunKeys) and the one definition
// of a counted run (PopulationOf), so that every command, view and export
// counts the same runs. Storage stores these nouns; it does not define them.
// It also names the seam every backend fills: Source, a bucket's listing
// (Query, Entry) and the opening of its objects by name.
//
// It does no I/O and imports no other package of the module but prow, the
// parsers of job names and artifacts.
package prowcrawl

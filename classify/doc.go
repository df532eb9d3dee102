// Package classify recognizes symptoms in the artifacts of a CI run: it
// holds the symptom rules (the built-in ones, embedded from builtin.yaml,
// and a user's rules file in the same format), checks them, and matches
// them against a run's files, test results and upgrade state.
//
// It is pure: bytes, readers and parsed artifacts in, matches with their
// evidence out. It must not open files, reach a network or a bucket, or
// touch a database; the crawler feeds it and the db package stores what it
// finds. It may use package prow, the parsers of the artifacts.
//
// Matching is one streaming pass per file for every rule that reads it,
// with memory flat in the file's size. Every regular expression is Go RE2,
// which runs in time linear in its input, so a hostile pattern or log line
// cannot hang a crawl. Most lines never reach a regular expression: each
// expression's required literals (strings one of which every match must
// contain, found with regexp/syntax) are searched for in whole chunks at
// once, by a skipping search that notes which literals each line holds
// (or, for literals too short to skip by, an Aho-Corasick automaton), and
// only the lines holding one are given to the expressions that asked for
// it.
package classify

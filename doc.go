// Package prowcrawl is the domain every other package speaks: the nouns of
// a crawl and the one definition of a counted run (PopulationOf), so that
// every command, view and export counts the same runs.
//
// It does no I/O and imports no other package of the module.
package prowcrawl

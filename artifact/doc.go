// Package artifact is a run's files as one value, and the one step that
// turns that value into what is recorded of the run.
//
// A Run is what listing a run's directory gives: each File's name relative
// to the directory, its size, and a way to open it, lazily (as
// go-containerregistry's v1.Layer opens on demand). Where the bytes come
// from is the source's business: package crawler makes Runs of a bucket's
// objects and of a directory that mirrors a bucket, and a cache of
// artifacts can make them of what it holds. Read takes a Run and returns
// its metadata, tests, upgrade versions and symptoms (parsed by package
// prow, classified by package classify), with every artifact that could
// not be used; it never knows where the bytes came from. The crawl, the
// classify command and reclassify are this one step over different
// sources.
//
// Read opens files in one order (the metadata, the JUnit files, the
// cluster version, then the other files a rule reads, each in listing
// order) and tells a Run that can read ahead (Run.Ahead) which files it is
// about to open. Evidence of a symptom found in several files is reported
// from the first in listing order, whatever order they were read in.
//
// It does no I/O of its own: no files, no network, no database. It may use
// package db's row types, never its queries.
package artifact

// Package crawler reads Prow job runs from a bucket and stores them through
// package db.
//
// It reads a bucket through a prowcrawl.Source: package gcs for Google
// Cloud Storage, package mirror for a local directory that mirrors a
// bucket, and Open picks one from a bucket URL. It owns discovery of jobs
// and builds, deciding which runs are new, listing and reading runs as the
// request bound has room for them, and handing the results to the single
// database writer. It must not hold SQL of its own, and it does not parse
// or classify: it lists a run and hands its files on as one value, an
// artifact.Run (each file's name, size and a lazy opener, with reading
// ahead), to artifact.Read, which parses (package prow) and classifies
// (package classify) without knowing where the bytes came from. It imports
// classify only to carry the rules to artifact.Read and to list the
// symptoms they detect; classify imports neither crawler nor db (make deps
// checks it).
//
// The seam is prowcrawl.Source: List and Open of objects by name. Every
// byte a crawl reads goes through one Source's Open, so a Source that
// wraps another (one that embeds it and overrides Open, or List) sees
// every object read: the bound on requests in flight is one, and so are
// the fakes of the tests. The cache does not wrap the source: a crawl tees
// the artifact.Run it reads into it. A crawl holds two bounds: the
// requests in flight (Config.Concurrency; a listing holds one while it
// runs, an object until it is read or closed) and the bytes held (read
// ahead and not yet parsed, or read and not yet stored; a run being read
// counts runCharge). Runs have no bound of their own: one starts while
// fewer requests are wanted (in flight or waiting for a slot) than twice
// the concurrency and the bytes held are within their bound.
package crawler

// Package crawler reads Prow job runs from a bucket and stores them through
// package db.
//
// It owns everything that touches a bucket: the two sources (GCS through
// cloud.google.com/go/storage, and a local directory that mirrors a bucket),
// discovery of jobs and builds, deciding which runs are new, reading and
// parsing each run's artifacts with a bounded pool of workers, and handing
// the results to the single database writer. It must not hold SQL of its
// own and must not classify: parsers live in package prow.
package crawler

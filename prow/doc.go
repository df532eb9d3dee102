// Package prow parses the artifacts that Prow and OpenShift CI leave in a
// run's directory of a results bucket: started.json, finished.json,
// prowjob.json, JUnit XML and clusterversion.json, together with job names,
// build ids and run paths.
//
// Its parsers are pure: bytes or an io.Reader in, values out. The package must
// do no I/O of its own (no files, no network, no database, no clock) so that
// the crawler, the classifier and the tests can share it and so that hostile
// or truncated artifacts can be fuzzed without any setup.
package prow

// Package gcs is the prowcrawl.Source of a Google Cloud Storage bucket,
// gs://NAME[/PREFIX], read through cloud.google.com/go/storage.
//
// A listing asks only for names, sizes and encodings, page by page, and
// is bounded as a whole (Options.MaxListPages, ListTimeout) so that page
// tokens that go round or never end fail it. Every request is idempotent
// and retried with jittered backoff; one that makes no progress within
// Options.RequestTimeout fails with ErrStalled, a body cut short is
// resumed or fails, never taken for the whole object, and a bucket that
// refuses a request (HTTP 401 or 403) gives an AccessError. Objects
// stored with Content-Encoding gzip arrive decompressed. The source
// honours STORAGE_EMULATOR_HOST, so any GCS-API server (fake-gcs-server
// in the tests) can stand in for GCS:
//
//	src, err := gcs.New(ctx, gcs.DefaultBucket, gcs.Options{})
//	if err != nil { ... }
//	defer src.Close()
//	ents, err := src.List(ctx, prowcrawl.Query{Prefix: "logs/", Delimiter: "/"})
//
// It is the only package that imports the storage client (make deps
// checks it). It hands out objects by name: it must not parse, classify
// or store them, and it imports no package of the module but the root.
package gcs

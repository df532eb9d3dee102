// Package mirror is the prowcrawl.Source of a local directory that
// mirrors a bucket's layout, as `gsutil -m rsync -r` or `gcloud storage
// cp -r` leaves it: the sample bucket of the tests and the demo, or a
// bucket downloaded once and crawled offline.
//
// It lists a directory as GCS lists a bucket (names in byte order,
// subdirectories as common prefixes when the delimiter is "/"), so that
// a crawl of the mirror finds the runs a crawl of the bucket finds, and
// MirrorOf records them under the bucket's name. Every read goes through
// an os.Root: no object name reaches outside the directory, and a
// symbolic link that would is listed with Entry.Problem rather than
// followed. Objects are handed out as stored: a file a mirror keeps
// gzip-compressed is read compressed, and the reader undoes it.
//
//	src, err := mirror.New("testdata/bucket")
//	if err != nil { ... }
//	defer src.Close()
//	if err := src.MirrorOf("gs://test-platform-results"); err != nil { ... }
//
// It must not parse, classify or store, and it imports no package of the
// module but the root.
package mirror

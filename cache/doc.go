// Package cache keeps, compressed on local disk, the objects a crawl
// downloaded from a bucket, so that reclassify, search and suggest read a
// run again without the bucket.
//
// A run is the unit of storage, of atomicity and of eviction: one file per
// run, DIR/runs/BUCKET/RUN-PATH.run, holding the run's listing (every
// object's name, size and encoding, read or not) and the content of the
// objects that were read, each one zstd frame with a CRC-32C of its stored
// bytes, then an index with a CRC-32C of its own. A run file is written
// whole in DIR/tmp, synced, and renamed into place, and its directory
// synced: a reader sees a run complete or not at all, and a writer killed
// halfway leaves only a temporary file that nothing reads and the next
// eviction removes. Every read is checked (the index when a run is opened,
// an object's stored bytes before they are decompressed, and its length and
// zstd checksum as it is decompressed); a damaged run is reported with
// ErrDamaged, never handed out. A run file's modification time is the run's
// start, so that eviction, which keeps the cache under its size, removes
// the oldest runs first with nothing but a walk of the directory.
//
// Readers and writers in other processes share a cache safely: files are
// replaced by rename, never changed in place, so an open Run keeps reading
// the file it opened even when it is replaced or evicted meanwhile.
//
// Reading a cached run, as reclassify, search and suggest do: the run is
// handed out as an artifact.Run, the value a crawl hands artifact.Read from
// a bucket, so that every reader of a run reads it one way:
//
//	c, err := cache.Open(dir, 0)
//	run, err := c.Open(cache.Key{Bucket: "test-platform-results", Path: "logs/JOB/1234"})
//	if errors.Is(err, cache.ErrNotCached) { ... } // absent, or damaged (ErrDamaged)
//	defer run.Close()
//	for _, f := range run.Artifact().Files { // the whole listing, in order
//		rc, err := f.Open(ctx)           // ErrNotCached: listed, not read
//		if err != nil { ... }            // ErrDamaged: the run must be read again
//		io.Copy(dst, rc)                 // f.Name() is relative to the run's directory
//		rc.Close()
//	}
//
// Run.All yields the cached objects alone, with their stored sizes, and
// c.Runs() every run the cache holds.
//
// The package is local storage: it knows nothing of buckets, parsing,
// classification or the database, and starts no goroutine. It imports no
// package of the module but artifact, whose run value it hands out (make
// deps checks it).
package cache

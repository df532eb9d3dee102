package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// BucketError is a bucket named to read runs from that cannot be opened,
// or that holds other runs than those asked for: the user's to fix.
type BucketError struct{ Err error }

func (e BucketError) Error() string { return e.Err.Error() }
func (e BucketError) Unwrap() error { return e.Err }

// RefetchStored reads stored runs again, whole, from the buckets they came
// from (or from bucket, a gs:// URL or a directory mirroring them, when it
// is not empty), one bucket after another, and stores them as backfill
// --refetch does; done is told each bucket's summary. A bucket that cannot
// be opened or holds other runs is a BucketError, and the runs of the
// buckets read before it are stored.
func RefetchStored(ctx context.Context, store *db.DB, cfg Config, bucket string, opts gcs.Options, runs []db.StoredRun, done func(Summary)) error {
	byBucket := map[string][]db.StoredRun{}
	var order []string
	for _, r := range runs {
		if _, ok := byBucket[r.Bucket]; !ok {
			order = append(order, r.Bucket)
		}
		byBucket[r.Bucket] = append(byBucket[r.Bucket], r)
	}
	var errs []error
	for _, b := range order {
		url := "gs://" + b
		if bucket != "" {
			url = bucket
		}
		src, err := Open(ctx, url, opts)
		if err != nil {
			return BucketError{err}
		}
		if d, ok := src.(*mirror.Dir); ok {
			if err := d.MirrorOf("gs://" + b); err != nil {
				closeSource(src)
				return BucketError{fmt.Errorf("--bucket: %w", err)}
			}
		}
		if src.Bucket() != b {
			closeSource(src)
			return BucketError{fmt.Errorf("--bucket %s holds runs of gs://%s, not of gs://%s", bucket, src.Bucket(), b)}
		}
		restore := RaiseProcs()
		sum, err := New(src, store, cfg).Refetch(ctx, byBucket[b])
		restore()
		closeSource(src)
		done(sum)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func closeSource(src prowcrawl.Source) {
	if c, ok := src.(io.Closer); ok {
		c.Close()
	}
}

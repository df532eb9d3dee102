package crawler

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
)

// TestRefetchStoredBadBucket: a --bucket that cannot be opened is a
// BucketError, said in the words of the error that opened it, and no
// bucket's runs are read.
func TestRefetchStoredBadBucket(t *testing.T) {
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs := []db.StoredRun{{Job: "periodic-ci-openshift-release-master-ci-4.14-e2e-aws-sdn-upgrade", BuildID: 1700000000000000001,
		Bucket: "test-platform-results", Path: "logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-sdn-upgrade/1700000000000000001"}}
	calls := 0
	err = RefetchStored(t.Context(), store, Config{Command: "reclassify"}, filepath.Join(t.TempDir(), "no-such-mirror"), gcs.Options{}, runs,
		func(Summary) { calls++ })
	var be BucketError
	if !errors.As(err, &be) || calls != 0 {
		t.Fatalf("a missing mirror: %v (%T), %d buckets read; want a BucketError and none", err, err, calls)
	}
	if be.Error() != be.Err.Error() {
		t.Errorf("a BucketError says %q, its cause %q", be.Error(), be.Err.Error())
	}
}

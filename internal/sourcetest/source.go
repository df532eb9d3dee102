// Package sourcetest holds the one fake prowcrawl.Source of the tests: a
// Source whose methods call its func fields (litestream's mock
// ReplicaClient). A test that needs another kind of fake sets a field, and
// one that disturbs a real source wraps it and overrides one field:
//
//	src := sourcetest.Wrap(dir)
//	src.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
//		if name == broken {
//			return nil, errors.New("connection reset by peer")
//		}
//		return dir.Open(ctx, name)
//	}
//
// It is for tests only: nothing outside a _test.go file imports it.
package sourcetest

import (
	"context"
	"io"

	"github.com/openshift-eng/prowcrawl"
)

// Source is a prowcrawl.Source whose methods call BucketFunc, ListFunc and
// OpenFunc. Calling a method whose field is nil panics: the test did not
// expect the call.
type Source struct {
	BucketFunc func() string
	ListFunc   func(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error)
	OpenFunc   func(ctx context.Context, name string) (io.ReadCloser, error)
}

var _ prowcrawl.Source = (*Source)(nil)

// Wrap is a Source whose fields pass every call on to src.
func Wrap(src prowcrawl.Source) *Source {
	return &Source{BucketFunc: src.Bucket, ListFunc: src.List, OpenFunc: src.Open}
}

// Bucket calls BucketFunc.
func (s *Source) Bucket() string { return s.BucketFunc() }

// List calls ListFunc.
func (s *Source) List(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
	return s.ListFunc(ctx, q)
}

// Open calls OpenFunc.
func (s *Source) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return s.OpenFunc(ctx, name)
}

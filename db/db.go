// Package db is prowcrawl's SQLite store: the schema (embedded, versioned
// migrations), the single writer and the queries the crawler and the analysis
// need.
//
// It is the only package that imports database/sql or modernc.org/sqlite; no
// other package writes SQL. It knows nothing of buckets, artifact formats or
// symptom rules: it stores what it is given.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotDatabase is returned by Open when the file exists but is not a SQLite
// database.
var ErrNotDatabase = errors.New("file is not a database")

// pragmas are set in the DSN, not with Exec, so that every connection the pool
// opens gets them. _txlock=immediate takes the write lock when a transaction
// begins, so that a writer waits (busy_timeout) instead of failing on upgrade.
// A 64 MiB page cache holds a batch of runs: with the default 2 MiB, a large
// transaction spills pages to the WAL and reads them back, halving write speed.
const pragmas = "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
	"&_pragma=synchronous(NORMAL)&_pragma=cache_size(-65536)&_txlock=immediate"

// DB is a prowcrawl database. It holds one connection, so writes are
// serialised; reads share it. It is safe for concurrent use.
type DB struct {
	db   *sql.DB
	path string

	// beforeCommit, when set, runs inside Write just before the commit.
	// Tests use it to look at the file while a transaction is open.
	beforeCommit func()

	// The writer's statements, compiled on the first Write.
	prepOnce sync.Once
	prepared []*sql.Stmt
	prepErr  error
}

// Open opens the database at path, creating the file if needed, and brings
// its schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenAtVersion(ctx, path, 0)
}

// OpenAtVersion is Open with the migrations applied only up to version (0:
// all of them): the database an older prowcrawl made, for the tests of
// schema upgrades.
func OpenAtVersion(ctx context.Context, path string, version int64) (*DB, error) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open db %s: directory %s does not exist", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open db %s: is a directory", path)
	}
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	// SQLite has one writer at a time; one connection makes that explicit
	// instead of a busy wait between our own connections.
	sqldb.SetMaxOpenConns(1)
	d := &DB{db: sqldb, path: path}
	if err := d.migrate(ctx, version); err != nil {
		return nil, errors.Join(fmt.Errorf("open db %s: %w", path, openError(err)), sqldb.Close())
	}
	return d, nil
}

// dsn is the URI that opens path with the pragmas. The path is escaped, since
// SQLite reads '?', '#' and '%' in a URI.
func dsn(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
}

// openError turns SQLite's code for a file that is not a database into
// ErrNotDatabase, which callers can test and users can read.
func openError(err error) error {
	var serr *sqlite.Error
	if errors.As(err, &serr) && serr.Code()&0xff == sqlite3.SQLITE_NOTADB {
		return ErrNotDatabase
	}
	return err
}

// Close closes the database.
func (d *DB) Close() error {
	for _, s := range d.prepared {
		s.Close()
	}
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("close db %s: %w", d.path, err)
	}
	return nil
}

// Path is the path the database was opened with.
func (d *DB) Path() string { return d.path }

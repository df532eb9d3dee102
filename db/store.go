// Package db is prowcrawl's SQLite store: the schema (embedded, versioned
// migrations), the single writer and the queries the crawler and the analysis
// need.
//
// Its files follow the tables and entities, never the commands that call
// them: store.go opens the database, migrate.go, lock.go, merge.go and
// write.go keep it; runs.go, crawls.go, symptoms.go, evidence.go (the runs
// that show a symptom), verdicts.go, rates.go, regressions.go and
// disruptions.go read and write one entity each; counts.go is what an
// analysis counts, from one snapshot. A list of rows is read with queryList.
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

// ErrForeign is returned (wrapped) for a SQLite database that another
// program made: prowcrawl adds nothing to it.
var ErrForeign = errors.New("a SQLite database of another program, not prowcrawl's")

// ErrEmpty is returned (wrapped) by NeedsMigration and OpenReadOnly for a
// file that holds no tables at all (an empty file is one): there is
// nothing to read until a crawl has written it.
var ErrEmpty = errors.New("empty: no crawl has written it")

// ErrOldSchema is returned (wrapped) by OpenReadOnly for a prowcrawl
// database of an older schema, which only a writer may upgrade.
var ErrOldSchema = errors.New("an older schema")

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

// ErrReadOnly is returned by Open for a database that may not be written:
// the file, or its directory (where SQLite writes the -wal and -shm files
// beside it), is read-only.
var ErrReadOnly = errors.New("read-only")

// OpenAtVersion is Open with the migrations applied only up to version (0:
// all of them): the database an older prowcrawl made, for the tests of
// schema upgrades.
func OpenAtVersion(ctx context.Context, path string, version int64) (*DB, error) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open db %s: directory %s does not exist", path, dir)
	}
	if err := checkRegular(path); err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	if err := checkWritable(path); err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	// SQLite has one writer at a time; one connection makes that explicit
	// instead of a busy wait between our own connections.
	sqldb.SetMaxOpenConns(1)
	d := &DB{db: sqldb, path: path}
	if err := ours(ctx, sqldb); err != nil && !errors.Is(err, ErrEmpty) {
		return nil, errors.Join(fmt.Errorf("open db %s: %w", path, openError(err)), sqldb.Close())
	}
	if err := d.migrate(ctx, version); err != nil {
		return nil, errors.Join(fmt.Errorf("open db %s: %w", path, openError(err)), sqldb.Close())
	}
	return d, nil
}

// ours says whether the database is prowcrawl's: it has schema_migrations,
// or no table at all (ErrEmpty); anything else is ErrForeign.
func ours(ctx context.Context, q *sql.DB) error {
	var mine, tables int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE type = 'table' AND name = 'schema_migrations'), count(*)
FROM sqlite_schema`).Scan(&mine, &tables); err != nil {
		return err
	}
	switch {
	case mine > 0:
		return nil
	case tables == 0:
		return ErrEmpty
	}
	return ErrForeign
}

// roPragmas are those of a reader: query_only refuses any write, whatever
// the statement, and no journal mode is set (that would write).
const roPragmas = "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)&_pragma=foreign_keys(1)&_pragma=cache_size(-65536)"

// OpenReadOnly opens a prowcrawl database of the current schema for
// reading only: it writes nothing to the file or beside it, and works on a
// file it may not write, in a directory it may not write. A file that is
// not prowcrawl's (ErrForeign), holds nothing (ErrEmpty) or has an older
// schema (ErrOldSchema: open it with Open, under the writer's lock, first)
// is refused.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	need, err := NeedsMigration(ctx, path)
	if err != nil {
		return nil, err
	}
	if need {
		return nil, fmt.Errorf("open db %s: %w", path, ErrOldSchema)
	}
	sqldb, err := sql.Open("sqlite", roDSN(path, false))
	if err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(1)
	if err := ours(ctx, sqldb); err != nil {
		sqldb.Close()
		// A WAL database needs its -shm file, which a reader cannot
		// make in a directory it may not write. With no -wal file
		// beside it, nothing is pending: the file alone is the
		// database, and it is read as it is.
		if _, werr := os.Stat(path + "-wal"); !errors.Is(werr, fs.ErrNotExist) || !cannotOpen(err) {
			return nil, fmt.Errorf("open db %s: %w", path, openError(err))
		}
		if sqldb, err = sql.Open("sqlite", roDSN(path, true)); err != nil {
			return nil, fmt.Errorf("open db %s: %w", path, err)
		}
		sqldb.SetMaxOpenConns(1)
		if err := ours(ctx, sqldb); err != nil {
			return nil, errors.Join(fmt.Errorf("open db %s: %w", path, openError(err)), sqldb.Close())
		}
	}
	return &DB{db: sqldb, path: path}, nil
}

// roDSN is the URI that opens path read-only; immutable tells SQLite that
// nobody writes the file meanwhile, so that it needs no -shm.
func roDSN(path string, immutable bool) string {
	u := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + roPragmas
	if immutable {
		u += "&immutable=1"
	}
	return u
}

// cannotOpen says whether err is SQLite's for a file it could not open
// or write (its -shm, in a read-only directory).
func cannotOpen(err error) bool {
	var serr *sqlite.Error
	if !errors.As(err, &serr) {
		return false
	}
	switch serr.Code() & 0xff {
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR:
		return true
	}
	return false
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

// queryList runs query on q (the database or a transaction) and scans every
// row with scan: the one loop over rows, which closes them and checks their
// error. It returns nil without rows.
func queryList[T any](ctx context.Context, q queryer, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := queryEach(ctx, q, func(rows *sql.Rows) error {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// queryEach runs query on q and calls each with every row, until each
// returns an error: the loop of a read that sums or indexes its rows
// rather than listing them. It closes the rows and checks their error.
func queryEach(ctx context.Context, q queryer, each func(*sql.Rows) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// queryer is a database or a transaction.
type queryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// scanString scans a row of one text column.
func scanString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

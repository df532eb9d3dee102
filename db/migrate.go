package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// schemaFile is the schema every migration makes, written out as the
// statements that create it at once (see schema.sql and make schema). A
// new, empty database gets it in one transaction instead of replaying each
// migration: the replay parses every ALTER and every rebuilt table again,
// about five times the work. It is used only when its version is the
// newest migration's; TestSchemaSnapshot fails when it is out of date.
//
//go:embed schema.sql
var schemaFile string

// migration is one file of migrations/, named NNNN_name.sql.
type migration struct {
	version int64
	name    string
	sql     string
}

// migrations reads the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, file := range names {
		base := strings.TrimSuffix(path.Base(file), ".sql")
		num, name, ok := strings.Cut(base, "_")
		version, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || version <= 0 || name == "" {
			return nil, fmt.Errorf("migration %s: name is not NNNN_name.sql", file)
		}
		text, err := fs.ReadFile(migrationFiles, file)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: version, name: name, sql: string(text)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migration %d: two files have that version", ms[i].version)
		}
	}
	return ms, nil
}

// migrate applies the migrations the database lacks, up to version upTo (0:
// all), each in its own transaction, and records them in schema_migrations.
func (d *DB) migrate(ctx context.Context, upTo int64) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL
) STRICT`
	if _, err := d.db.ExecContext(ctx, create); err != nil {
		return err
	}
	var newest sql.NullInt64
	if err := d.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return err
	}
	if known := ms[len(ms)-1].version; newest.Int64 > known {
		return fmt.Errorf("schema version %d is newer than this program knows (%d)", newest.Int64, known)
	}
	// Each migration not recorded is applied, not only those above the
	// newest: a database rewound to before one (a test does it) gets it back.
	applied, err := appliedVersions(ctx, d.db)
	if err != nil {
		return err
	}
	if len(applied) == 0 && upTo == 0 {
		done, err := d.createAtOnce(ctx, ms)
		if err != nil {
			return fmt.Errorf("schema of %04d_%s: %w", ms[len(ms)-1].version, ms[len(ms)-1].name, err)
		}
		if done {
			return nil
		}
	}
	for _, m := range ms {
		if applied[m.version] || upTo > 0 && m.version > upTo {
			continue
		}
		if err := d.apply(ctx, m); err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	return nil
}

// apply runs one migration unless another process applied it since migrate
// looked: the transaction takes the write lock first, so checking inside it is
// enough.
func (d *DB) apply(ctx context.Context, m migration) (err error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	var applied int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&applied); err != nil {
		return err
	}
	if applied > 0 {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if step := goSteps[m.version]; step != nil {
		if err := step(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, formatTime(time.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// snapshotVersion is the migration whose schema schemaFile holds, from its
// first line, "-- version N"; 0 if it has none.
func snapshotVersion() int64 {
	first, _, _ := strings.Cut(schemaFile, "\n")
	v, err := strconv.ParseInt(strings.TrimPrefix(first, "-- version "), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// createAtOnce gives a database that holds nothing but an empty
// schema_migrations the whole schema from schemaFile, and records every
// migration as applied, in one transaction. It does nothing (false) when the
// snapshot is not of the newest migration, or when another process has
// begun to migrate the file since migrate looked.
func (d *DB) createAtOnce(ctx context.Context, ms []migration) (done bool, err error) {
	if snapshotVersion() != ms[len(ms)-1].version {
		return false, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil || !done {
			err = errors.Join(err, rollback(tx))
		}
	}()
	var others, applied int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM sqlite_schema WHERE name <> 'schema_migrations'),
	(SELECT count(*) FROM schema_migrations)`).Scan(&others, &applied); err != nil {
		return false, err
	}
	if others > 0 || applied > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, schemaFile); err != nil {
		return false, err
	}
	now := formatTime(time.Now())
	for _, m := range ms {
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, now); err != nil {
			return false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	return true, nil
}

// rollback rolls tx back, ignoring that it is already done.
func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// NeedsMigration reports whether the database at path lacks migrations this
// program would apply on Open. It only reads: a caller that must not migrate
// without the writer's lock (see AcquireLock) asks first.
func NeedsMigration(ctx context.Context, path string) (bool, error) {
	ms, err := migrations()
	if err != nil {
		return false, err
	}
	if err := checkRegular(path); err != nil {
		return false, fmt.Errorf("open db %s: %w", path, err)
	}
	sqldb, err := sql.Open("sqlite", roDSN(path, false))
	if err != nil {
		return false, fmt.Errorf("open db %s: %w", path, err)
	}
	defer sqldb.Close()
	err = ours(ctx, sqldb)
	if err != nil && cannotOpen(err) {
		// A read-only directory: see OpenReadOnly.
		if _, werr := os.Stat(path + "-wal"); errors.Is(werr, fs.ErrNotExist) {
			sqldb.Close()
			if sqldb, err = sql.Open("sqlite", roDSN(path, true)); err != nil {
				return false, fmt.Errorf("open db %s: %w", path, err)
			}
			defer sqldb.Close()
			err = ours(ctx, sqldb)
		}
	}
	if err != nil {
		return false, fmt.Errorf("open db %s: %w", path, openError(err))
	}
	applied, err := appliedVersions(ctx, sqldb)
	if err != nil {
		return false, fmt.Errorf("open db %s: %w", path, err)
	}
	for _, m := range ms {
		if !applied[m.version] {
			return true, nil
		}
	}
	return false, nil
}

// appliedVersions are the versions recorded in schema_migrations.
func appliedVersions(ctx context.Context, q queryer) (map[int64]bool, error) {
	vs, err := queryList(ctx, q, func(rows *sql.Rows) (int64, error) {
		var v int64
		err := rows.Scan(&v)
		return v, err
	}, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(vs))
	for _, v := range vs {
		out[v] = true
	}
	return out, nil
}

package db

import (
	"database/sql"
	"testing"
)

// edgeCases are the shapes of edge a run can have, and their keys.
var edgeCases = []struct {
	e    Edge
	want string
}{
	{Edge{"4.13", "4.14", "minor"}, "4.13->4.14 minor"},
	{Edge{"4.14", "4.14", "micro"}, "4.14 micro"},
	{Edge{"", "4.14", "micro"}, "4.14 micro"},
	{Edge{"4.12", "4.14", "multi"}, "4.12->4.14 multi"},
	{Edge{"4.14", "4.14", "none"}, "4.14 none"},
	{Edge{"4.13", "4.14", ""}, "4.13->4.14 -"},
	{Edge{"", "", "micro"}, ""},
}

func TestEdgeString(t *testing.T) {
	for _, c := range edgeCases {
		if got := c.e.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.e, got, c.want)
		}
	}
	v := Variant{Edge: Edge{"4.13", "4.14", "minor"}, Platform: "aws", Arch: "amd64"}
	if got, want := v.String(), "4.13->4.14 minor aws - amd64"; got != want {
		t.Errorf("variant with no network = %q, want %q", got, want)
	}
}

// TestKeysSQL checks that the SQL of the keys (the runs.edge column, and
// edgeSQL and variantSQL of the queries) gives the text Edge.String and
// Variant.String give, on the same runs.
func TestKeysSQL(t *testing.T) {
	ctx := t.Context()
	d := openTest(t)
	for i, c := range edgeCases {
		rec := Record{
			Job: Job{Name: "job-" + string(rune('a'+i)), Platform: "aws", Arch: "amd64"},
			Run: Run{BuildID: int64(i + 1), Bucket: "b", Path: "p", URL: "u", Result: "success", FetchStatus: "complete",
				Release: c.e.To, FromRelease: c.e.From, Upgrade: c.e.Kind},
		}
		if err := d.Write(ctx, []Record{rec}, nil); err != nil {
			t.Fatal(err)
		}
		var column, expr, variant sql.NullString
		if err := d.db.QueryRowContext(ctx, `SELECT r.edge, `+edgeSQL("r")+`, `+variantSQL(edgeSQL("r"), "j")+`
FROM runs r JOIN jobs j ON j.name = r.job WHERE r.job = ?`, rec.Job.Name).Scan(&column, &expr, &variant); err != nil {
			t.Fatal(err)
		}
		v := Variant{Edge: c.e, Platform: "aws", Arch: "amd64"}
		if column.String != c.want || expr.String != c.want || variant.String != v.String() {
			t.Errorf("%#v: runs.edge %q, edgeSQL %q, variantSQL %q; want %q and %q", c.e, column.String, expr.String,
				variant.String, c.want, v.String())
		}
	}
}

package db

// The edge and variant keys are defined here once. Go code builds them with
// Edge.String and Variant.String; the SQL of the schema and of the queries
// (edgeSQL, variantSQL) must give the same text, which keys_test.go
// checks on every shape of edge.

// Edge is an upgrade edge: the release a run starts from, the release it
// ends on, and the upgrade kind (micro, minor, multi, major, none; empty when
// unknown). From is empty when the run does not say, and equal to To for a
// z-stream.
type Edge struct {
	From, To, Kind string
}

// String is the edge's scope key: "4.13->4.14 minor", or "4.14 micro" when
// the run starts and ends in one release (or does not say where it started);
// an unknown kind is "-". It is empty when To is.
func (e Edge) String() string {
	if e.To == "" {
		return ""
	}
	kind := dash(e.Kind)
	if e.From == "" || e.From == e.To {
		return e.To + " " + kind
	}
	return e.From + "->" + e.To + " " + kind
}

// Variant is an edge on one platform, network and arch (each empty when the
// job's name does not say).
type Variant struct {
	Edge
	Platform, Network, Arch string
}

// String is the variant's scope key: the edge, then platform, network and
// arch, "-" for each that is unknown: "4.13->4.14 minor aws ovn amd64".
func (v Variant) String() string {
	if v.Edge.String() == "" {
		return ""
	}
	return v.Edge.String() + " " + dash(v.Platform) + " " + dash(v.Network) + " " + dash(v.Arch)
}

// dash is s, or "-" when it is empty (NULL in the database).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// edgeSQL is the SQL of Edge.String for the runs (or groups of runs) g, with
// columns release, from_release and upgrade, NULL for an empty string: the
// expression of the runs.edge column. Computed from the columns, the edge
// lets SQLite read runs from a covering index, which it never does for a
// query that names a virtual column.
func edgeSQL(g string) string {
	return `CASE
		WHEN ` + g + `.release IS NULL THEN NULL
		WHEN ` + g + `.from_release IS NULL OR ` + g + `.from_release = ` + g + `.release THEN ` + g + `.release || ' ' || coalesce(` + g + `.upgrade, '-')
		ELSE ` + g + `.from_release || '->' || ` + g + `.release || ' ' || coalesce(` + g + `.upgrade, '-')
	END`
}

// variantSQL is the SQL of Variant.String for an edge expression and the
// job j.
func variantSQL(edge, j string) string {
	return edge + ` || ' ' || coalesce(` + j + `.platform, '-') || ' ' || coalesce(` + j + `.network, '-') || ' ' || coalesce(` + j + `.arch, '-')`
}

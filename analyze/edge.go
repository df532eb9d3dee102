package analyze

import (
	"strconv"
	"strings"
)

// release is an X.Y release, compared numerically (4.9 < 4.10).
type release struct{ major, minor int }

// parseRelease reads "X.Y"; ok is false for anything else.
func parseRelease(s string) (r release, ok bool) {
	x, y, found := strings.Cut(s, ".")
	if !found {
		return release{}, false
	}
	var err error
	if r.major, err = strconv.Atoi(x); err != nil || r.major < 0 || !digits(x) {
		return release{}, false
	}
	if r.minor, err = strconv.Atoi(y); err != nil || r.minor < 0 || !digits(y) {
		return release{}, false
	}
	return r, true
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func (r release) String() string {
	return strconv.Itoa(r.major) + "." + strconv.Itoa(r.minor)
}

func (r release) less(o release) bool {
	return r.major < o.major || r.major == o.major && r.minor < o.minor
}

// Edge is an upgrade edge: the release a run starts from, the release it
// ends on, and the upgrade kind (micro, minor, multi, major, none; empty when
// unknown). From is empty when the run does not say, and equal to To for a
// z-stream.
type Edge struct {
	From, To, Kind string
}

// String is the edge's scope key: "4.13->4.14 minor", or "4.14 micro" when
// the run starts and ends in one release (or does not say where it started);
// an unknown kind is "-". It must match the SQL of runs.edge in the schema.
func (e Edge) String() string {
	kind := dash(e.Kind)
	if e.From == "" || e.From == e.To {
		return e.To + " " + kind
	}
	return e.From + "->" + e.To + " " + kind
}

// dash is s, or "-" when it is empty (NULL in the database).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// previous is the same-shaped edge one release earlier: each end one release
// back, the same kind. 4.13->4.14 minor gives 4.12->4.13 minor, 4.14 micro
// gives 4.13 micro, 4.12->4.14 multi gives 4.11->4.13 multi. The release
// before X.0 is the newest .Y in known; ok is false when there is none,
// or when the edge's releases are not X.Y.
func (e Edge) previous(known []release) (Edge, bool) {
	to, ok := previousRelease(e.To, known)
	if !ok {
		return Edge{}, false
	}
	prev := Edge{To: to, Kind: e.Kind}
	switch e.From {
	case "":
	case e.To:
		prev.From = to
	default:
		if prev.From, ok = previousRelease(e.From, known); !ok {
			return Edge{}, false
		}
	}
	return prev, true
}

func previousRelease(s string, known []release) (string, bool) {
	r, ok := parseRelease(s)
	if !ok {
		return "", false
	}
	if r.minor > 0 {
		return release{r.major, r.minor - 1}.String(), true
	}
	var best release
	found := false
	for _, k := range known {
		if k.major == r.major-1 && (!found || best.less(k)) {
			best, found = k, true
		}
	}
	if !found {
		return "", false
	}
	return best.String(), true
}

// Variant is an edge on one platform, network and arch (each empty when the
// job's name does not say).
type Variant struct {
	Edge
	Platform, Network, Arch string
}

// String is the variant's scope key: the edge, then platform, network and
// arch, "-" for each that is unknown: "4.13->4.14 minor aws ovn amd64". It
// must match the SQL of the variant key in the schema.
func (v Variant) String() string {
	return v.Edge.String() + " " + dash(v.Platform) + " " + dash(v.Network) + " " + dash(v.Arch)
}

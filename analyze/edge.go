package analyze

import (
	"strconv"
	"strings"

	"github.com/openshift-eng/prowcrawl"
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

// previousEdge is the same-shaped edge one release earlier: each end one release
// back, the same kind. 4.13->4.14 minor gives 4.12->4.13 minor, 4.14 micro
// gives 4.13 micro, 4.12->4.14 multi gives 4.11->4.13 multi. The release
// before X.0 is the newest .Y in known; ok is false when there is none,
// or when the edge's releases are not X.Y.
func previousEdge(e prowcrawl.Edge, known []release) (prowcrawl.Edge, bool) {
	to, ok := previousRelease(e.To, known)
	if !ok {
		return prowcrawl.Edge{}, false
	}
	prev := prowcrawl.Edge{To: to, Kind: e.Kind}
	switch e.From {
	case "":
	case e.To:
		prev.From = to
	default:
		if prev.From, ok = previousRelease(e.From, known); !ok {
			return prowcrawl.Edge{}, false
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

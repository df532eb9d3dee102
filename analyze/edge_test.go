package analyze

import (
	"testing"

	"github.com/openshift-eng/prowcrawl/db"
)

func TestEdgePrevious(t *testing.T) {
	known := []release{{4, 22}, {4, 21}, {4, 9}, {3, 11}, {4, 1}}
	for _, c := range []struct {
		e    db.Edge
		want string // "" when there is none
	}{
		{db.Edge{"4.13", "4.14", "minor"}, "4.12->4.13 minor"},
		{db.Edge{"4.9", "4.10", "minor"}, "4.8->4.9 minor"}, // numeric, not 4.1 or 4.09
		{db.Edge{"4.10", "4.11", "minor"}, "4.9->4.10 minor"},
		{db.Edge{"4.14", "4.14", "micro"}, "4.13 micro"},
		{db.Edge{"", "4.14", "micro"}, "4.13 micro"},
		{db.Edge{"4.12", "4.14", "multi"}, "4.11->4.13 multi"},
		{db.Edge{"4.22", "5.0", "major"}, "4.21->4.22 major"}, // the release before 5.0 is the newest 4.x known
		{db.Edge{"4.0", "4.1", "minor"}, "3.11->4.0 minor"},
		{db.Edge{"5.0", "5.0", "micro"}, "4.22 micro"},
		{db.Edge{"6.0", "6.0", "micro"}, ""}, // no 5.x known
		{db.Edge{"main", "main", "micro"}, ""},
		{db.Edge{"4.13", "4.x", "minor"}, ""},
	} {
		got, ok := previousEdge(c.e, known)
		if c.want == "" {
			if ok {
				t.Errorf("%v.previous() = %v, want none", c.e, got)
			}
			continue
		}
		if !ok || got.String() != c.want {
			t.Errorf("%v.previous() = %v, %v, want %s", c.e, got, ok, c.want)
		}
	}
}

func TestParseRelease(t *testing.T) {
	for s, want := range map[string]bool{"4.14": true, "4.9": true, "10.0": true, "4": false, "4.": false,
		".4": false, "4.14.1": false, "v4.14": false, "4.-1": false, "4.+1": false, "": false} {
		if _, ok := parseRelease(s); ok != want {
			t.Errorf("parseRelease(%q) ok = %v, want %v", s, ok, want)
		}
	}
	a, _ := parseRelease("4.9")
	b, _ := parseRelease("4.10")
	if !a.less(b) || b.less(a) {
		t.Errorf("4.9 < 4.10 does not hold")
	}
}

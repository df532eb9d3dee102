package analyze

import (
	"testing"

	"github.com/openshift-eng/prowcrawl"
)

func TestEdgePrevious(t *testing.T) {
	known := []release{{4, 22}, {4, 21}, {4, 9}, {3, 11}, {4, 1}}
	for _, c := range []struct {
		e    prowcrawl.Edge
		want string // "" when there is none
	}{
		{prowcrawl.Edge{From: "4.13", To: "4.14", Kind: "minor"}, "4.12->4.13 minor"},
		{prowcrawl.Edge{From: "4.9", To: "4.10", Kind: "minor"}, "4.8->4.9 minor"}, // numeric, not 4.1 or 4.09
		{prowcrawl.Edge{From: "4.10", To: "4.11", Kind: "minor"}, "4.9->4.10 minor"},
		{prowcrawl.Edge{From: "4.14", To: "4.14", Kind: "micro"}, "4.13 micro"},
		{prowcrawl.Edge{From: "", To: "4.14", Kind: "micro"}, "4.13 micro"},
		{prowcrawl.Edge{From: "4.12", To: "4.14", Kind: "multi"}, "4.11->4.13 multi"},
		{prowcrawl.Edge{From: "4.22", To: "5.0", Kind: "major"}, "4.21->4.22 major"}, // the release before 5.0 is the newest 4.x known
		{prowcrawl.Edge{From: "4.0", To: "4.1", Kind: "minor"}, "3.11->4.0 minor"},
		{prowcrawl.Edge{From: "5.0", To: "5.0", Kind: "micro"}, "4.22 micro"},
		{prowcrawl.Edge{From: "6.0", To: "6.0", Kind: "micro"}, ""}, // no 5.x known
		{prowcrawl.Edge{From: "main", To: "main", Kind: "micro"}, ""},
		{prowcrawl.Edge{From: "4.13", To: "4.x", Kind: "minor"}, ""},
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

package prowcrawl

import (
	"testing"
	"time"
)

// TestPayloadNames: nightly and ci payloads (and an arm64 nightly) carry
// their build time; z-streams, candidates and pull-request builds do not,
// and only payloads the release controller knows have pages.
func TestPayloadNames(t *testing.T) {
	at := time.Date(2026, 11, 11, 10, 55, 49, 0, time.UTC)
	for _, c := range []struct {
		name     string
		timed    bool
		page     string
		verified bool
	}{
		{"4.14.0-0.nightly-2026-11-11-105549", true, "https://amd64.ocp.releases.ci.openshift.org/releasestream/4.14.0-0.nightly/release/4.14.0-0.nightly-2026-11-11-105549", true},
		{"4.14.0-0.ci-2026-11-11-105549", true, "https://amd64.ocp.releases.ci.openshift.org/releasestream/4.14.0-0.ci/release/4.14.0-0.ci-2026-11-11-105549", false},
		{"4.14.0-0.nightly-arm64-2026-11-11-105549", true, "https://arm64.ocp.releases.ci.openshift.org/releasestream/4.14.0-0.nightly-arm64/release/4.14.0-0.nightly-arm64-2026-11-11-105549", false},
		{"4.14.0-0.ci.test-2026-11-11-105549-ci-op-5ciz7ejj-latest", true, "", false},
		{"4.14.3", false, "https://amd64.ocp.releases.ci.openshift.org/releasetag/4.14.3", true},
		{"4.15.0-rc.2", false, "https://amd64.ocp.releases.ci.openshift.org/releasetag/4.15.0-rc.2", true},
		{"", false, "", false},
	} {
		got, ok := PayloadTime(c.name)
		if ok != c.timed || ok && !got.Equal(at) {
			t.Errorf("PayloadTime(%q) = %v, %v", c.name, got, ok)
		}
		first := at.Add(48 * time.Hour)
		if o := PayloadOrder(c.name, first); c.timed && !o.Equal(at) || !c.timed && !o.Equal(first) {
			t.Errorf("PayloadOrder(%q) = %v", c.name, o)
		}
		l, ok := PayloadPage(c.name)
		if ok != (c.page != "") || l.URL != c.page || l.Verified != c.verified {
			t.Errorf("PayloadPage(%q) = %+v, %v", c.name, l, ok)
		}
	}
	if l, ok := Changelog("4.14.2", "4.14.3"); !ok || l.URL != "https://amd64.ocp.releases.ci.openshift.org/changelog?from=4.14.2&to=4.14.3" || !l.Verified {
		t.Errorf("z-stream changelog %+v", l)
	}
	if l, ok := Changelog("4.14.0-0.nightly-2026-11-10-010101", "4.14.0-0.nightly-2026-11-11-105549"); !ok || l.Verified {
		t.Errorf("nightly changelog %+v: its form is not the release controller's own", l)
	}
	if _, ok := Changelog("", "4.14.3"); ok {
		t.Error("a changelog from no payload")
	}
}

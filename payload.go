package prowcrawl

import (
	"net/url"
	"regexp"
	"strings"
	"time"
)

// payloadStamp is the time a nightly or ci payload's name carries:
// 4.14.0-0.nightly-2026-11-11-105549 was built on 2026-11-11 at 10:55:49.
var payloadStamp = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}-\d{6})(?:$|-)`)

// PayloadTime is the time in a payload's name, false for a name without
// one (a z-stream 4.14.3, a candidate 4.14.0-rc.2, an empty name): such a
// payload is ordered by its first run's start instead.
func PayloadTime(name string) (time.Time, bool) {
	m := payloadStamp.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02-150405", m[1])
	return t, err == nil
}

// PayloadOrder is the time a payload is ordered by: the time in its name,
// else its first run's start (first).
func PayloadOrder(name string, first time.Time) time.Time {
	if t, ok := PayloadTime(name); ok {
		return t
	}
	return first
}

// Link is a page to read, and whether its address form was checked
// against the release controller's own links (false: built by analogy).
type Link struct {
	URL      string `json:"url"`
	Verified bool   `json:"verified"`
}

// releaseController is the release controller of OpenShift's amd64 payloads;
// another architecture's is named after it.
const releaseController = "https://amd64.ocp.releases.ci.openshift.org"

func controllerOf(arch string) string {
	if arch == "" {
		return releaseController
	}
	return "https://" + arch + ".ocp.releases.ci.openshift.org"
}

// payloadStream is the release stream a nightly or ci payload belongs to:
// 4.14.0-0.nightly for 4.14.0-0.nightly-2026-11-11-105549.
// An architecture's payloads (4.14.0-0.nightly-arm64-...) are in that
// architecture's stream, on its own release controller.
var payloadStream = regexp.MustCompile(`^(\d+\.\d+\.\d+-0\.(nightly|ci)(?:-(arm64|ppc64le|s390x|multi))?)-\d{4}-\d{2}-\d{2}-\d{6}$`)

// zStream is a released version: 4.14.3, 4.14.0-rc.2, 4.15.0-ec.1.
var zStream = regexp.MustCompile(`^\d+\.\d+\.\d+(?:-(?:rc|ec|fc)\.\d+)?$`)

// PayloadPage is the release controller's page of a payload, with its
// tests and its changes since the previous one; false for a name that is
// no payload the release controller knows (a pull request's
// 4.14.0-0.ci.test-... build, an empty name). The nightly stream's form and
// the releasetag form are the release controller's own; the ci stream's is
// the nightly's, by analogy.
func PayloadPage(name string) (Link, bool) {
	if m := payloadStream.FindStringSubmatch(name); m != nil {
		return Link{URL: controllerOf(m[3]) + "/releasestream/" + m[1] + "/release/" + name, Verified: m[2] == "nightly" && m[3] == ""}, true
	}
	if zStream.MatchString(name) {
		return Link{URL: releaseController + "/releasetag/" + name, Verified: true}, true
	}
	return Link{}, false
}

// Changelog is the release controller's list of the changes (pull
// requests, by component) between two payloads, from excluded; false when
// either is no payload it knows. The form, /changelog?from=A&to=B, is the
// one the release controller links released versions with; between
// nightlies it is the same by analogy.
func Changelog(from, to string) (Link, bool) {
	a, ok := PayloadPage(from)
	if !ok {
		return Link{}, false
	}
	b, ok := PayloadPage(to)
	if !ok {
		return Link{}, false
	}
	verified := a.Verified && b.Verified && zStream.MatchString(from) && zStream.MatchString(to)
	q := url.Values{"from": {from}, "to": {to}}
	return Link{URL: releaseController + "/changelog?" + strings.ReplaceAll(q.Encode(), "%2F", "/"), Verified: verified}, true
}

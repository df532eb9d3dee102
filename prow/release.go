package prow

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrBadVersion is returned for a version or payload tag of an artifact
// that is not one: a version is X.Y or X.Y.Z, optionally with "v" before
// it and a pre-release or build suffix after it ("4.14.0-0.nightly-2023-09-01-001122",
// "4.15.0-ec.2"), at most MaxVersionLen bytes, and nothing else (no space,
// no control character, no newline that would add a key to a YAML draft).
var ErrBadVersion = errors.New("not a version")

// MaxVersionLen is the longest version accepted (real ones are under 60).
const MaxVersionLen = 128

var versionShape = regexp.MustCompile(`^v?[0-9]{1,9}\.[0-9]{1,9}(\.[0-9]{1,9})?([-+][0-9A-Za-z][0-9A-Za-z.+_-]*)?$`)

// CheckVersion returns nil for "" (not said) and for a version of the
// shape ErrBadVersion describes, else an error that wraps ErrBadVersion.
func CheckVersion(v string) error {
	if v == "" || len(v) <= MaxVersionLen && versionShape.MatchString(v) {
		return nil
	}
	if len(v) > MaxVersionLen {
		v = v[:MaxVersionLen] + "..."
	}
	return fmt.Errorf("%q: %w", v, ErrBadVersion)
}

// Upgrade kinds, the values of Variants.Upgrade and of UpgradeKind.
const (
	UpgradeNone  = "none"  // the job does not upgrade
	UpgradeMicro = "micro" // within one X.Y (a z-stream or nightly-to-nightly upgrade)
	UpgradeMinor = "minor" // from X.Y to X.(Y+1)
	UpgradeMulti = "multi" // across more than one minor, or through several
	UpgradeMajor = "major" // from X.* to (X+1).*
	// UpgradeMicroDowngrade is a job that installs the newer payload and
	// goes back to the older one (-upgrade-out-of-change): never counted
	// with the micro upgrades.
	UpgradeMicroDowngrade = "micro-downgrade"
)

// release is an OpenShift X.Y release.
type release struct{ major, minor int }

func (r release) String() string {
	return strconv.Itoa(r.major) + "." + strconv.Itoa(r.minor)
}

func (r release) compare(o release) int {
	return cmp.Or(cmp.Compare(r.major, o.major), cmp.Compare(r.minor, o.minor))
}

// maxReleasePart bounds the numbers accepted in X.Y; larger ones are not
// OpenShift releases (and would overflow arithmetic on hostile input).
const maxReleasePart = 9999

// parseRelease reads "X.Y" followed by nothing or by a character that cannot
// continue a number ("4.14", "4.14.0-0.nightly-...", "4.14-e2e").
func parseRelease(s string) (release, bool) {
	major, rest, ok := leadingNumber(s)
	if !ok || !strings.HasPrefix(rest, ".") {
		return release{}, false
	}
	minor, rest, ok := leadingNumber(rest[1:])
	if !ok || (rest != "" && rest[0] >= '0' && rest[0] <= '9') {
		return release{}, false
	}
	return release{major, minor}, true
}

// leadingNumber reads the decimal number at the start of s.
func leadingNumber(s string) (int, string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 4 {
		return 0, s, false
	}
	n, _ := strconv.Atoi(s[:i])
	return n, s[i:], n <= maxReleasePart
}

// ReleaseOf returns the X.Y release of a full version such as
// "4.14.0-0.ci-2023-09-01-000000" or "v4.13.10", or "" if version does not
// start with one.
func ReleaseOf(version string) string {
	r, ok := parseRelease(strings.TrimPrefix(strings.TrimSpace(version), "v"))
	if !ok {
		return ""
	}
	return r.String()
}

// UpgradeKind classifies the upgrade between two full versions (for example
// a clusterversion's FromVersion and ToVersion): UpgradeMicro within one X.Y,
// UpgradeMinor one minor apart, UpgradeMulti further apart, UpgradeMajor
// across majors, and "" when either version is empty or unparsable. A
// rollback (to older than from) is classified by the same distance.
func UpgradeKind(from, to string) string {
	f, ok := parseRelease(strings.TrimPrefix(strings.TrimSpace(from), "v"))
	if !ok {
		return ""
	}
	t, ok := parseRelease(strings.TrimPrefix(strings.TrimSpace(to), "v"))
	if !ok {
		return ""
	}
	if f.compare(t) > 0 {
		f, t = t, f
	}
	return upgradeBetween(f, t)
}

// upgradeBetween classifies an upgrade from lo to hi, lo <= hi.
func upgradeBetween(lo, hi release) string {
	switch {
	case lo.major != hi.major:
		return UpgradeMajor
	case lo.minor == hi.minor:
		return UpgradeMicro
	case hi.minor-lo.minor == 1:
		return UpgradeMinor
	default:
		return UpgradeMulti
	}
}

package classify

import (
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

// TestLazyDFA checks the automaton against the regexp package on random
// regexes and lines, and on the built-in rules' regexes with lines of the
// realistic log.
func TestLazyDFA(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 60
	if testing.Short() || raceEnabled {
		n = 10
	}
	var patterns []string
	for range n {
		patterns = append(patterns, randomRegex(rng))
	}
	patterns = append(patterns, textRegexes(benchRules())...)
	patterns = append(patterns, `^alpha`, `beta$`, `^$`, `\Bx`, `\bx\b`, `(?i)KELVIN`, `(?m)^a$`, `a|^b|c$`, `(?:)`, `x*`, `[^a]`, `.`, `(?s).`, `\A\z`)
	lines := strings.Split(string(upgradeLog(1<<20)), "\n")[:8*n]
	for range 8 * n {
		lines = append(lines, string(randomLog(rng, 1, false)))
	}
	lines = append(lines, "", "a", "alpha", "beta", "x", " x ", "ax", "KELVIN", "\u212aelvin", "a\nb", "b", "\x00")
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		d := newLazyDFA(p)
		c := d.get()
		for _, l := range lines {
			got, ok := dfaMatchText(c, l)
			if !ok {
				continue
			}
			if want := re.MatchString(l); got != want {
				t.Fatalf("%q on %q: automaton %v, regexp %v", p, l, got, want)
			}
			if got2, _ := dfaMatchText(c, []byte(l)); got2 != got {
				t.Fatalf("%q on %q: string and bytes differ", p, l)
			}
		}
		d.put(c)
	}
}

// TestCIDRDFA checks that the automaton of an "ip" group made an address
// of the networks matches wherever a match of the regex captures such an
// address: where it does not match, the engine skips the regexp.
func TestCIDRDFA(t *testing.T) {
	prefixes := [][]netip.Prefix{
		{netip.MustParsePrefix("10.128.0.0/14")},
		{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.0/24")},
		{netip.MustParsePrefix("172.30.0.0/16"), netip.MustParsePrefix("fd00::/8")},
		{netip.MustParsePrefix("0.0.0.0/0")},
		{netip.MustParsePrefix("10.129.7.9/32")},
	}
	patterns := []string{
		`dial tcp (?P<ip>[0-9.]+):[0-9]+: (?:i/o timeout|connect: no route to host)`,
		`https?://(?P<ip>[0-9.]+)[:/][^\s"]*"?: context deadline exceeded`,
		`(?P<ip>[0-9a-f:.]+) unreachable`,
		`(?:from|to) (?P<ip>\S+)`,
	}
	addrs := []string{"10.128.0.1", "10.131.255.255", "10.132.0.1", "10.127.9.9", "10.0.3.4", "192.168.1.77", "192.168.2.1",
		"172.30.0.1", "fd00::1", "::ffff:10.129.0.5", "0:0:0:0:0:FFFF:10.128.1.1", "::ffff:a80:1", "10.129.7.9", "10.129.7.90", "1.2.3.4", "010.128.0.1", "10.128.0.1.5"}
	for _, ps := range prefixes {
		for _, p := range patterns {
			re := regexp.MustCompile(p)
			group := re.SubexpIndex("ip")
			d := cidrDFA(p, group, ps)
			if d == nil {
				t.Fatalf("%s: no automaton", p)
			}
			c := d.get()
			for _, a := range addrs {
				for _, line := range []string{
					"dial tcp " + a + ":8443: i/o timeout",
					`Get "https://` + a + `:8443/healthz": context deadline exceeded`,
					a + " unreachable",
					"from " + a + " to 10.0.0.1",
					"to 1.1.1.1 from " + a,
				} {
					in := false
					for _, loc := range re.FindAllStringSubmatchIndex(line, -1) {
						if s, e := loc[2*group], loc[2*group+1]; s >= 0 && inPrefixes([]byte(line[s:e]), ps) {
							in = true
						}
					}
					if m, ok := dfaMatchText(c, line); ok && !m && in {
						t.Errorf("%v %s: %q captures an address inside, the automaton does not match", ps, p, line)
					}
				}
			}
			d.put(c)
		}
	}
}

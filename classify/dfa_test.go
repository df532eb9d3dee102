package classify

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestLazyDFA checks the automaton against the regexp package on random
// regexes and lines, and on the built-in rules' regexes with lines of the
// realistic log.
func TestLazyDFA(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var patterns []string
	for range 60 {
		patterns = append(patterns, randomRegex(rng))
	}
	patterns = append(patterns, textRegexes(benchRules())...)
	patterns = append(patterns, `^alpha`, `beta$`, `^$`, `\Bx`, `\bx\b`, `(?i)KELVIN`, `(?m)^a$`, `a|^b|c$`, `(?:)`, `x*`, `[^a]`, `.`, `(?s).`, `\A\z`)
	lines := strings.Split(string(upgradeLog(1<<20)), "\n")[:800]
	for range 800 {
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

package classify

import (
	"fmt"
	"strings"
	"testing"
)

// TestRulesBounded: a file of more rules than MaxRules, or larger than
// MaxRulesBytes, is refused with one sentence that says why, before any
// rule is compiled.
func TestRulesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("symptoms:\n")
	for i := range MaxRules + 1 {
		fmt.Fprintf(&b, "  - {id: generated-%d, title: t, files: [build-log.txt], match: [{lines: {any: ['never %d']}}]}\n", i, i)
	}
	_, err := ParseRules("many.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "many.yaml:2: symptoms: 1001 rules, more than a rules file may hold (1000)") || strings.Contains(err.Error(), "\n") {
		t.Errorf("1001 rules: %v", err)
	}
	big := "symptoms:\n  - {id: big, title: t, files: [build-log.txt], match: [{lines: {any: ['x']}}]}\n#" + strings.Repeat("x", MaxRulesBytes)
	if _, err := ParseRules("big.yaml", []byte(big)); err == nil || !strings.Contains(err.Error(), "more than a rules file may hold (4 MiB)") {
		t.Errorf("a 4 MiB file: %v", err)
	}
	b.Reset()
	b.WriteString("symptoms:\n")
	for i := range MaxRules {
		fmt.Fprintf(&b, "  - {id: generated-%d, title: t, files: [build-log.txt], match: [{lines: {any: ['never %d']}}]}\n", i, i)
	}
	if rules, err := ParseRules("max.yaml", []byte(b.String())); err != nil || len(rules) != MaxRules {
		t.Errorf("%d rules: %d parsed, %v", MaxRules, len(rules), err)
	}
}

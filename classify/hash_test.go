package classify

import (
	"testing"
	"time"
)

func TestRuleHash(t *testing.T) {
	rules := Builtin()
	seen := map[string]string{}
	for _, r := range rules {
		h := r.Hash()
		if len(h) != 16 {
			t.Errorf("%s: hash %q", r.ID, h)
		}
		if other, ok := seen[h]; ok {
			t.Errorf("%s and %s share hash %s", r.ID, other, h)
		}
		seen[h] = r.ID
	}
	base := Rule{ID: "x", Title: "X", Files: []string{"build-log.txt"},
		Match: []Matcher{{Lines: &LinesMatcher{Any: []string{"refused"}}}}}
	same := base
	same.Title, same.Description, same.Bug, same.Source = "Other", "words", "https://example.com/1", "my.yaml"
	if base.Hash() != same.Hash() {
		t.Error("a new title or bug changed the hash")
	}
	changed := []Rule{
		{ID: "x", Title: "X", Files: []string{"**/build-log.txt"}, Match: base.Match},
		{ID: "x", Title: "X", Files: base.Files, Match: []Matcher{{Lines: &LinesMatcher{Any: []string{"refused"}, Min: 2}}}},
		{ID: "x", Title: "X", Files: base.Files, Match: []Matcher{{Sequence: &SequenceMatcher{First: "a", Then: "b", Within: time.Second}}}},
		{ID: "y", Title: "X", Files: base.Files, Match: base.Match},
	}
	for i, r := range changed {
		if r.Hash() == base.Hash() {
			t.Errorf("change %d kept the hash", i)
		}
	}
	e, err := NewEngine(rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if e.RuleHash(r.ID) != r.Hash() {
			t.Errorf("%s: engine's hash differs", r.ID)
		}
	}
	if e.RuleHash("nope") != "" {
		t.Error("hash of an unknown id")
	}
}

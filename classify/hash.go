package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/openshift-eng/prowcrawl"
)

// Hash names the version of a rule's definition that finds its matches:
// the first 16 hex digits of the SHA-256 of its id, files and match list
// in a canonical form (JSON, fields in their declared order). A new title,
// description, bug or source keeps the hash; any change to what is read or
// matched changes it. run_symptoms.rule_hash records it beside each match,
// so that evidence found by an older version of a rule can be told apart.
func (r *Rule) Hash() string {
	def := struct {
		Version int
		ID      string
		Files   []string
		Match   []Matcher
	}{1, r.ID, r.Files, r.Match}
	b, err := json.Marshal(def)
	if err != nil {
		// Every field marshals; the rule is hashed by its id alone
		// rather than not at all.
		b = []byte(r.ID)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// RuleHash is the Hash of the engine's rule with this id, the version that
// found its matches; "" for an id the engine does not have.
func (e *Engine) RuleHash(id string) string {
	for _, cr := range e.compiled {
		if cr.rule.ID == id {
			return cr.hash
		}
	}
	return ""
}

// Versions are the versions of the engine's rules: what a run classified
// by it was evaluated by, matched or not.
func (e *Engine) Versions() []prowcrawl.RuleVersion {
	out := make([]prowcrawl.RuleVersion, len(e.compiled))
	for i, cr := range e.compiled {
		out[i] = prowcrawl.RuleVersion{ID: cr.rule.ID, Hash: cr.hash}
	}
	return out
}

// Reach is where the rule applies, by topology.
func (r *Rule) Reach() prowcrawl.Reach {
	return prowcrawl.Reach{Topology: r.Topology, NotTopology: r.NotTopology}
}

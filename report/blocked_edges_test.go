package report

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
)

// TestBlockedEdges drafts the blocked edges of the fixture's regression
// (pod-network-cross-node on 4.13->4.14 minor, regressed on aws, new on
// gcp): the draft parses as YAML with the fields of
// cincinnati-graph-data's blocked-edges files, and its from expression
// matches every from-version of a run that showed it on the regressed
// edge and none of the from-versions of the other updates into 4.14 in
// the database.
func TestBlockedEdges(t *testing.T) {
	d := openFixture(t)
	in, err := analyze.LoadSymptom(t.Context(), d, "pod-network-cross-node", analyze.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteAssessment(&out, assess.Assess(in), FormatBlockedEdges); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	type doc struct {
		To            string `yaml:"to"`
		From          string `yaml:"from"`
		URL           string `yaml:"url"`
		Name          string `yaml:"name"`
		Message       string `yaml:"message"`
		MatchingRules []struct {
			Type   string `yaml:"type"`
			PromQL struct {
				PromQL string `yaml:"promql"`
			} `yaml:"promql"`
		} `yaml:"matchingRules"`
	}
	var docs []doc
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var dd doc
		err := dec.Decode(&dd)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the draft is not YAML: %v\n%s", err, text)
		}
		docs = append(docs, dd)
	}
	if len(docs) != 1 {
		t.Fatalf("%d documents, want one (one target release, 4.14):\n%s", len(docs), text)
	}
	got := docs[0]
	if !strings.HasPrefix(got.To, "4.14.") || got.URL != "https://bugzilla.redhat.com/show_bug.cgi?id=1868392" || got.Name != "PodNetworkCrossNode" ||
		!strings.Contains(got.Message, "6/14") && !strings.Contains(got.Message, "7/24") {
		t.Errorf("document %+v", got)
	}
	if len(got.MatchingRules) != 1 || got.MatchingRules[0].Type != "PromQL" ||
		!strings.Contains(got.MatchingRules[0].PromQL.PromQL, `cluster_infrastructure_provider{_id="",type=~"AWS|GCP"}`) {
		t.Errorf("matching rules %+v, want PromQL on AWS and GCP (both showed it)", got.MatchingRules)
	}
	for _, want := range []string{"# No fixedIn: ", "# CI cannot know how much of the fleet", "# to is the first CI payload"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks the comment %q:\n%s", want, text)
		}
	}
	from := regexp.MustCompile("^(?:" + got.From + ")$")
	fvs, err := d.EdgeFromVersions(t.Context(), "pod-network-cross-node", db.Bounds{Since: in.Since})
	if err != nil {
		t.Fatal(err)
	}
	affected, unaffected := 0, 0
	for _, fv := range fvs {
		switch {
		case fv.Edge == "4.13->4.14 minor" && fv.WithSymptom > 0:
			affected++
			if !from.MatchString(fv.FromVersion) {
				t.Errorf("from %q does not match the affected from-version %s", got.From, fv.FromVersion)
			}
		case fv.Release == "4.14" && fv.Edge != "4.13->4.14 minor":
			unaffected++
			if from.MatchString(fv.FromVersion) {
				t.Errorf("from %q matches %s of %s, which is not affected", got.From, fv.FromVersion, fv.Edge)
			}
		}
	}
	if affected == 0 || unaffected == 0 {
		t.Errorf("%d affected and %d unaffected from-versions into 4.14: the test checks nothing", affected, unaffected)
	}

	// A symptom that regressed nowhere drafts nothing to block.
	in, err = analyze.LoadSymptom(t.Context(), d, "etcd-connection-refused", analyze.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := WriteAssessment(&out, assess.Assess(in), FormatBlockedEdges); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "# etcd-connection-refused is a regression on no edge") {
		t.Errorf("draft of a flake: %s", out.String())
	}
	_ = db.ScopeEdge
}

package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// FormatBlockedEdges drafts the blocked-edges files of
// openshift/cincinnati-graph-data from an assessment.
const FormatBlockedEdges = "blocked-edges"

// writeBlockedEdges writes the drafts as YAML documents, each headed by
// comments that mark what CI cannot know. Every comment and every value is
// one safe line (safe.Line; the message is wrapped after), so that no text
// from the bucket ends a comment or forges a key; the file name is
// BlockedEdge.File, made of safe parts.
func writeBlockedEdges(w io.Writer, a assess.Assessment) error {
	var buf bytes.Buffer
	comment := func(format string, args ...any) {
		buf.WriteString("# " + safe.Line(fmt.Sprintf(format, args...)) + "\n")
	}
	if len(a.Blocked) == 0 {
		comment("%s is a regression on no edge: there is no edge to block.", a.SymptomID)
		_, err := w.Write(buf.Bytes())
		return err
	}
	for i, d := range a.Blocked {
		if i > 0 {
			buf.WriteString("---\n")
		}
		comment("Draft from CI runs (prowcrawl report --assess %s --format blocked-edges):", a.SymptomID)
		comment("%s, for %s.", d.File(), strings.Join(d.Edges, ", "))
		for _, c := range d.Comments {
			comment("%s", c)
		}
		doc := &yaml.Node{Kind: yaml.MappingNode}
		add := func(k string, v *yaml.Node) {
			doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
		}
		str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: safe.Line(s)} }
		add("to", str(d.To))
		add("from", str(d.From))
		if d.FixedIn != "" {
			add("fixedIn", str(d.FixedIn))
		}
		if d.URL != "" {
			add("url", str(d.URL))
		} else {
			add("url", &yaml.Node{Kind: yaml.ScalarNode, Value: "", Tag: "!!str", Style: yaml.DoubleQuotedStyle})
		}
		add("name", str(d.Name))
		add("message", &yaml.Node{Kind: yaml.ScalarNode, Value: wrapPlain(safe.Line(d.Message), 100), Style: yaml.LiteralStyle})
		rule := &yaml.Node{Kind: yaml.MappingNode}
		if len(d.Platforms) > 0 {
			promql := fmt.Sprintf("cluster_infrastructure_provider{_id=\"\",type=~%q}\nor\n0 * cluster_infrastructure_provider{_id=\"\"}\n", strings.Join(d.Platforms, "|"))
			rule.Content = append(rule.Content, str("type"), str("PromQL"), str("promql"), &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				str("promql"), {Kind: yaml.ScalarNode, Value: promql, Style: yaml.LiteralStyle},
			}})
		} else {
			rule.Content = append(rule.Content, str("type"), str("Always"))
		}
		add("matchingRules", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{rule}})
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// wrapPlain breaks s into lines of at most width runes at spaces.
func wrapPlain(s string, width int) string {
	return wrap(s, "", "", width)
}

package classify

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/openshift-eng/prowcrawl/prow"
)

// maxYAMLNodes bounds how many nodes a rules file may expand to, aliases
// followed, so that a file of nested aliases cannot exhaust memory.
const maxYAMLNodes = 1 << 20

// MaxRules and MaxRulesBytes bound a rules file: every rule is matched
// against every line of every run and gets a verdict in every scope, so a
// generated file of 20,000 rules made a 70-run crawl take 3.3 GB and write
// 261 MB of verdicts. The built-in file holds 7; a team's rarely 100.
const (
	MaxRules      = 1000
	MaxRulesBytes = 4 << 20
)

// ParseRules parses a rules file. name is the file's name: it prefixes every
// error and is the rules' Source. Every problem of the file is reported, each
// with its line, joined into one error:
//
//	my-rules.yaml:14: symptoms[1].match[0].lines.any[0]: bad regular expression `(`: missing closing )
func ParseRules(name string, b []byte) ([]Rule, error) {
	if len(b) > MaxRulesBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a rules file may hold (%d MiB): split it, or keep the rules that matter", name, len(b), MaxRulesBytes>>20)
	}
	p := &ruleParser{name: name, lines: make(map[string]int)}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, p.yamlError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: no symptoms", name)
	}
	root := p.resolve(doc.Content[0])
	fields := p.fields(root, "", "symptoms")
	syms := fields["symptoms"]
	if syms == nil {
		if len(p.errs) == 0 {
			p.errorf(root, "", "no symptoms")
		}
		return nil, p.joined()
	}
	if syms.Kind == yaml.SequenceNode && len(syms.Content) > MaxRules {
		return nil, fmt.Errorf("%s:%d: symptoms: %d rules, more than a rules file may hold (%d): every rule is matched against every line of every run, and gets a verdict in every scope", name, syms.Line, len(syms.Content), MaxRules)
	}
	var rules []Rule
	firstID := make(map[string]int)
	for i, n := range p.list(syms, "symptoms") {
		path := fmt.Sprintf("symptoms[%d]", i)
		r, ok := p.rule(n, path)
		r.Source = name
		if line, dup := firstID[r.ID]; dup && r.ID != "" {
			p.errorLine(p.line(path+".id", n), path+".id", "duplicate id %q (first at line %d)", r.ID, line)
		} else {
			firstID[r.ID] = p.line(path+".id", n)
		}
		var errs []fieldError
		if !r.Disabled {
			_, errs = compileRule(&r)
		}
		for _, e := range errs {
			full := joinPath(path, e.path)
			if p.reported(joinPath(full, e.field)) {
				continue // a consequence of a problem already reported
			}
			p.errorLine(p.line(full, n), full, "%s", e.msg)
		}
		if ok && len(errs) == 0 {
			rules = append(rules, r)
		}
	}
	if len(p.errs) > 0 {
		return nil, p.joined()
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s:%d: symptoms: empty list", name, syms.Line)
	}
	return rules, nil
}

// ruleParser walks the YAML nodes of a rules file.
type ruleParser struct {
	name  string
	errs  []error
	errAt []int          // the line of each error
	paths []string       // the path of each error
	lines map[string]int // line of each path seen
	nodes int            // nodes visited, aliases expanded
}

// joined returns the errors in the order of their lines.
func (p *ruleParser) joined() error {
	idx := make([]int, len(p.errs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p.errAt[a], p.errAt[b]) })
	errs := make([]error, len(idx))
	for i, j := range idx {
		errs[i] = p.errs[j]
	}
	return errors.Join(errs...)
}

// reported reports whether an error was reported at path or inside it.
func (p *ruleParser) reported(path string) bool {
	for _, q := range p.paths {
		if q == path || strings.HasPrefix(q, path+".") || strings.HasPrefix(q, path+"[") {
			return true
		}
	}
	return false
}

// joinPath appends a relative path to a path.
func joinPath(path, rel string) string {
	switch {
	case rel == "":
		return path
	case path == "":
		return rel
	}
	return path + "." + rel
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlError turns a YAML syntax error into the "name:line: msg" form.
func (p *ruleParser) yamlError(err error) error {
	msg := err.Error()
	if te, ok := errors.AsType[*yaml.TypeError](err); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", p.name, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %s", p.name, strings.TrimPrefix(msg, "yaml: "))
}

func (p *ruleParser) errorf(n *yaml.Node, path, format string, args ...any) {
	p.errorLine(n.Line, path, format, args...)
}

func (p *ruleParser) errorLine(line int, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.paths = append(p.paths, path)
	p.errAt = append(p.errAt, line)
	if path != "" {
		msg = path + ": " + msg
	}
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.name, line, msg))
}

// line returns the line of path, or of its nearest parent that was seen,
// or of n.
func (p *ruleParser) line(path string, n *yaml.Node) int {
	for {
		if l, ok := p.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return n.Line
		}
		path = path[:i]
	}
}

// resolve follows aliases and counts the node against the budget.
func (p *ruleParser) resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	p.nodes++
	return n
}

// fields returns the values of a mapping by key, reporting keys that are
// not among known, repeated keys and a node that is not a mapping.
func (p *ruleParser) fields(n *yaml.Node, path string, known ...string) map[string]*yaml.Node {
	if _, ok := p.lines[path]; !ok {
		p.lines[path] = n.Line
	}
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil
		}
		p.errorf(n, path, "want a mapping with the fields %s", strings.Join(known, ", "))
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := p.resolve(n.Content[i]), p.resolve(n.Content[i+1])
		key := k.Value
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		switch first, dup := seen[key]; {
		case dup:
			p.errorf(k, sub, "repeated field (first at line %d)", first)
			continue
		case !contains(known, key):
			p.errorf(k, sub, "unknown field %q; want one of %s", key, strings.Join(known, ", "))
			continue
		}
		seen[key] = k.Line
		p.lines[sub] = k.Line
		out[key] = v
	}
	return out
}

// list returns the items of a sequence; a single scalar is a list of one.
func (p *ruleParser) list(n *yaml.Node, path string) []*yaml.Node {
	if p.nodes > maxYAMLNodes {
		return nil
	}
	switch {
	case n.Kind == yaml.SequenceNode:
		items := make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			items[i] = p.resolve(c)
			p.lines[fmt.Sprintf("%s[%d]", path, i)] = items[i].Line
		}
		if p.nodes > maxYAMLNodes {
			p.errorf(n, path, "too many nodes once aliases are expanded")
			return nil
		}
		return items
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil
	case n.Kind == yaml.ScalarNode:
		p.lines[path+"[0]"] = n.Line
		return []*yaml.Node{n}
	}
	p.errorf(n, path, "want a list")
	return nil
}

// str returns a scalar's text; null is empty.
func (p *ruleParser) str(n *yaml.Node, path string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, path, "want a string")
		return ""
	}
	if n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// strs returns a list of strings.
func (p *ruleParser) strs(n *yaml.Node, path string) []string {
	if n == nil {
		return nil
	}
	var out []string
	for i, item := range p.list(n, path) {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if item.Kind == yaml.ScalarNode && item.Tag == "!!null" {
			p.errorf(item, ipath, "empty entry")
			continue
		}
		out = append(out, p.str(item, ipath))
	}
	return out
}

// count returns a "min" count: a positive integer.
func (p *ruleParser) count(n *yaml.Node, path string) int {
	if n == nil {
		return 0
	}
	s := p.str(n, path)
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		p.errorf(n, path, "bad count %q: want a whole number of at least 1", s)
		return 0
	}
	return v
}

// duration returns a Go duration ("30s", "1m30s") above zero.
func (p *ruleParser) duration(n *yaml.Node, path string) (time.Duration, bool) {
	if n == nil {
		return 0, false
	}
	s := p.str(n, path)
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		p.errorf(n, path, "bad duration %q: want a Go duration above zero such as 30s or 1m30s", s)
		return 0, false
	}
	return d, true
}

// rule reads one symptom.
func (p *ruleParser) rule(n *yaml.Node, path string) (Rule, bool) {
	nerrs := len(p.errs)
	f := p.fields(n, path, "id", "title", "description", "bug", "files", "match", "disabled", "topology", "not_topology")
	if f == nil {
		if len(p.errs) == nerrs {
			p.errorf(n, path, "empty symptom")
		}
		return Rule{}, false
	}
	if d := f["disabled"]; d != nil {
		return p.disabled(f, d, path), len(p.errs) == nerrs
	}
	r := Rule{
		ID:          p.str(f["id"], path+".id"),
		Title:       p.str(f["title"], path+".title"),
		Description: p.str(f["description"], path+".description"),
		Bug:         p.str(f["bug"], path+".bug"),
		Files:       p.strs(f["files"], path+".files"),
	}
	for _, t := range []struct {
		key string
		dst *[]string
	}{{"topology", &r.Topology}, {"not_topology", &r.NotTopology}} {
		if v := f[t.key]; v != nil {
			*t.dst = p.strs(v, path+"."+t.key)
			for _, top := range *t.dst {
				if !slices.Contains(topologies, top) {
					p.errorf(v, path+"."+t.key, "unknown topology %q (want %s)", top, strings.Join(topologies, ", "))
				}
			}
		}
	}
	if m := f["match"]; m != nil {
		for i, item := range p.list(m, path+".match") {
			r.Match = append(r.Match, p.matcher(item, fmt.Sprintf("%s.match[%d]", path, i)))
		}
	}
	return r, len(p.errs) == nerrs
}

// disabled reads an entry {id: ID, disabled: true}, which turns a symptom
// off: it takes no other field, since nothing of it would be used.
func (p *ruleParser) disabled(f map[string]*yaml.Node, d *yaml.Node, path string) Rule {
	r := Rule{ID: p.str(f["id"], path+".id"), Disabled: true}
	if v := p.str(d, path+".disabled"); v != "true" {
		p.errorf(d, path+".disabled", "bad value %q: want true (to keep a symptom, leave the entry out)", v)
	}
	switch {
	case r.ID == "":
		p.errorf(d, path, "missing id: a disabled entry names the symptom it turns off")
	case !idPattern.MatchString(r.ID):
		p.errorLine(p.line(path+".id", d), path+".id", "id %q must be lower-case letters, digits and dashes, starting with a letter or digit", r.ID)
	}
	for _, k := range []string{"title", "description", "bug", "files", "match"} {
		if f[k] != nil {
			p.errorLine(p.line(path+"."+k, d), path+"."+k, "a disabled entry takes only id and disabled")
		}
	}
	return r
}

// matcherKinds are the keys of a match entry.
var matcherKinds = []string{"lines", "events", "junit", "upgrade", "disruption", "sequence"}

// matcher reads one match entry. An entry with no or several kinds is left
// for compileRule to report.
func (p *ruleParser) matcher(n *yaml.Node, path string) Matcher {
	var m Matcher
	f := p.fields(n, path, matcherKinds...)
	for _, kind := range matcherKinds {
		v := f[kind]
		if v == nil {
			continue
		}
		sub := path + "." + kind
		switch kind {
		case "lines":
			g := p.fields(v, sub, "any", "all", "not", "min", "cidr")
			l := &LinesMatcher{
				Any: p.strs(g["any"], sub+".any"),
				All: p.strs(g["all"], sub+".all"),
				Not: p.strs(g["not"], sub+".not"),
				Min: p.count(g["min"], sub+".min"),
			}
			for i, s := range p.strs(g["cidr"], sub+".cidr") {
				if strings.TrimSpace(s) == "cluster" {
					l.ClusterCIDR = true
					continue
				}
				pf, err := netip.ParsePrefix(strings.TrimSpace(s))
				if err != nil {
					p.errorLine(p.line(fmt.Sprintf("%s.cidr[%d]", sub, i), n), fmt.Sprintf("%s.cidr[%d]", sub, i), "bad CIDR %q: want a network such as 10.128.0.0/14, or cluster (the run's own)", s)
					continue
				}
				l.CIDR = append(l.CIDR, pf.Masked())
			}
			m.Lines = l
		case "events":
			g := p.fields(v, sub, "message", "locator", "reason", "min")
			m.Events = &EventsMatcher{
				Message: p.str(g["message"], sub+".message"),
				Locator: p.str(g["locator"], sub+".locator"),
				Reason:  p.str(g["reason"], sub+".reason"),
				Min:     p.count(g["min"], sub+".min"),
			}
		case "junit":
			g := p.fields(v, sub, "name", "status")
			j := &JUnitMatcher{Name: p.str(g["name"], sub+".name")}
			for _, s := range p.strs(g["status"], sub+".status") {
				j.Status = append(j.Status, prow.TestStatus(s))
			}
			m.JUnit = j
		case "upgrade":
			g := p.fields(v, sub, "state")
			m.Upgrade = &UpgradeMatcher{State: p.str(g["state"], sub+".state")}
		case "disruption":
			g := p.fields(v, sub, "backend", "min")
			d := &DisruptionMatcher{Backend: p.str(g["backend"], sub+".backend")}
			d.Min, _ = p.duration(g["min"], sub+".min")
			m.Disruption = d
		case "sequence":
			g := p.fields(v, sub, "first", "then", "within", "different")
			s := &SequenceMatcher{
				First:     p.str(g["first"], sub+".first"),
				Then:      p.str(g["then"], sub+".then"),
				Different: p.str(g["different"], sub+".different"),
			}
			s.Within, _ = p.duration(g["within"], sub+".within")
			m.Sequence = s
		}
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package classify

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

// idPattern is what a symptom id looks like.
var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ipGroup is the name of the capture group that a cidr check reads.
const ipGroup = "ip"

// fieldError is a problem with one field of a rule; path is relative to the
// rule ("match[0].lines.any[1]") and empty for the rule itself.
type fieldError struct {
	path, msg string
	// field is set for a missing field: its name, relative to path.
	field string
}

// ruleChecker collects a rule's problems while it is compiled.
type ruleChecker struct {
	errs []fieldError
}

func (c *ruleChecker) add(path, format string, args ...any) {
	c.errs = append(c.errs, fieldError{path: path, msg: fmt.Sprintf(format, args...)})
}

// missing reports a required field that is absent or empty.
func (c *ruleChecker) missing(path, field string) {
	c.errs = append(c.errs, fieldError{path: path, msg: "missing " + field, field: field})
}

// regex compiles one regular expression of a rule.
func (c *ruleChecker) regex(path, pattern string) *regexp.Regexp {
	if pattern == "" {
		c.add(path, "empty regular expression")
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		if se, ok := errors.AsType[*syntax.Error](err); ok {
			msg := se.Code.String()
			if se.Expr != "" && se.Expr != pattern {
				msg += ": `" + se.Expr + "`"
			}
			c.add(path, "bad regular expression `%s`: %s", pattern, msg)
		} else {
			c.add(path, "bad regular expression `%s`: %v", pattern, err)
		}
		return nil
	}
	return re
}

// required compiles the regular expression of a required field.
func (c *ruleChecker) required(path, field, pattern string) *regexp.Regexp {
	if pattern == "" {
		c.missing(path, field)
		return nil
	}
	return c.regex(path+"."+field, pattern)
}

// optRegex compiles a regular expression that may be absent.
func (c *ruleChecker) optRegex(path, pattern string) *regexp.Regexp {
	if pattern == "" {
		return nil
	}
	return c.regex(path, pattern)
}

// compileRule checks r and compiles its globs and regular expressions. The
// compiled rule is usable only when there are no problems.
func compileRule(r *Rule) (*compiledRule, []fieldError) {
	var c ruleChecker
	cr := &compiledRule{rule: r}
	switch {
	case r.ID == "":
		c.missing("", "id")
	case !idPattern.MatchString(r.ID):
		c.add("id", "id %q must be lower-case letters, digits and dashes, starting with a letter or digit", r.ID)
	}
	if strings.TrimSpace(r.Title) == "" {
		c.missing("", "title")
	}
	if r.Bug != "" {
		if u, err := url.Parse(r.Bug); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.add("bug", "bug %q is not an http(s) URL", r.Bug)
		}
	}
	if len(r.Files) == 0 {
		c.missing("", "files")
	}
	var globs []string
	for i, f := range r.Files {
		g, err := globRegexp(f)
		if err != nil {
			c.add(fmt.Sprintf("files[%d]", i), "bad glob %q: %v", f, err)
			continue
		}
		globs = append(globs, g)
	}
	if len(globs) == len(r.Files) && len(globs) > 0 {
		cr.files = regexp.MustCompile(`^(?:` + strings.Join(globs, "|") + `)$`)
	}
	if len(r.Match) == 0 {
		c.missing("", "match")
	}
	for i, m := range r.Match {
		path := fmt.Sprintf("match[%d]", i)
		cm := c.matcher(path, m)
		if cm != nil {
			cr.matchers = append(cr.matchers, cm)
		}
	}
	return cr, c.errs
}

// matcher checks and compiles one entry of a rule's match list.
func (c *ruleChecker) matcher(path string, m Matcher) *compiledMatcher {
	set := 0
	for _, p := range []bool{m.Lines != nil, m.Events != nil, m.JUnit != nil, m.Upgrade != nil, m.Disruption != nil, m.Sequence != nil} {
		if p {
			set++
		}
	}
	switch {
	case set == 0:
		c.add(path, "empty matcher: want one of lines, events, junit, upgrade, disruption, sequence")
		return nil
	case set > 1:
		c.add(path, "more than one matcher in one entry; make each its own list entry")
		return nil
	}
	cm := &compiledMatcher{min: 1}
	switch {
	case m.Lines != nil:
		cm.kind, cm.lines = kindLines, c.lines(path+".lines", m.Lines)
		cm.min = max(m.Lines.Min, 1)
		if m.Lines.Min < 0 {
			c.add(path+".lines.min", "min must be at least 1")
		}
	case m.Events != nil:
		e := m.Events
		cm.kind = kindEvents
		cm.events = &eventsProgram{
			message: c.optRegex(path+".events.message", e.Message),
			locator: c.optRegex(path+".events.locator", e.Locator),
			reason:  c.optRegex(path+".events.reason", e.Reason),
		}
		if e.Message == "" && e.Locator == "" && e.Reason == "" {
			c.add(path+".events", "events needs at least one of message, locator, reason")
		}
		cm.min = max(e.Min, 1)
		if e.Min < 0 {
			c.add(path+".events.min", "min must be at least 1")
		}
	case m.JUnit != nil:
		cm.kind = kindJUnit
		cm.junit = &junitProgram{name: c.required(path+".junit", "name", m.JUnit.Name), status: m.JUnit.Status}
		if len(cm.junit.status) == 0 {
			cm.junit.status = []prow.TestStatus{prow.StatusFail}
		}
		for i, s := range m.JUnit.Status {
			if !slices.Contains([]prow.TestStatus{prow.StatusFail, prow.StatusFlake, prow.StatusPass, prow.StatusSkip}, s) {
				c.add(fmt.Sprintf("%s.junit.status[%d]", path, i), "unknown status %q: want fail, flake, pass or skip", s)
			}
		}
	case m.Upgrade != nil:
		cm.kind, cm.upgrade = kindUpgrade, m.Upgrade.State
		if s := m.Upgrade.State; s == "" {
			c.missing(path+".upgrade", "state")
		} else if s != prow.UpdatePartial && s != prow.UpdateCompleted {
			c.add(path+".upgrade.state", "unknown state %q: want Partial or Completed", s)
		}
	case m.Disruption != nil:
		d := m.Disruption
		cm.kind = kindDisruption
		cm.disruption = &disruptionProgram{backend: c.optRegex(path+".disruption.backend", d.Backend), min: d.Min}
		if d.Min < 0 {
			c.add(path+".disruption.min", "bad duration %v: must be above zero", d.Min)
		}
		if d.Min <= 0 {
			cm.disruption.min = time.Nanosecond
		}
	case m.Sequence != nil:
		s := m.Sequence
		cm.kind = kindSequence
		cm.sequence = &sequenceProgram{
			first:  c.required(path+".sequence", "first", s.First),
			then:   c.required(path+".sequence", "then", s.Then),
			within: s.Within,
		}
		switch {
		case s.Within == 0:
			c.missing(path+".sequence", "within")
		case s.Within < 0:
			c.add(path+".sequence.within", "bad duration %v: within must be above zero", s.Within)
		}
		switch s.Different {
		case "":
		case DifferentNamespace:
			cm.sequence.different = differentNamespace
		case DifferentNode:
			cm.sequence.different = differentNode
		default:
			c.add(path+".sequence.different", "unknown value %q: want namespace or node", s.Different)
		}
	}
	return cm
}

// lines compiles a lines matcher.
func (c *ruleChecker) lines(path string, l *LinesMatcher) *linesProgram {
	p := &linesProgram{cidr: l.CIDR, cluster: l.ClusterCIDR}
	checksIP := len(l.CIDR) > 0 || l.ClusterCIDR
	if len(l.Any) == 0 && len(l.All) == 0 {
		c.add(path, "lines needs any or all")
	}
	for i, s := range l.Any {
		ipath := fmt.Sprintf("%s.any[%d]", path, i)
		re := c.regex(ipath, s)
		if re == nil {
			continue
		}
		group := -1
		if checksIP {
			if group = re.SubexpIndex(ipGroup); group < 0 {
				c.add(ipath, "cidr is set but `%s` has no (?P<ip>...) group", s)
			}
		}
		p.any = append(p.any, anyRegex{re: re, ipGroup: group})
	}
	if len(l.Any) == 0 && checksIP {
		c.add(path+".cidr", "cidr needs any regexes with a (?P<ip>...) group")
	}
	for i, s := range l.All {
		if re := c.regex(fmt.Sprintf("%s.all[%d]", path, i), s); re != nil {
			p.all = append(p.all, re)
		}
	}
	for i, s := range l.Not {
		if re := c.regex(fmt.Sprintf("%s.not[%d]", path, i), s); re != nil {
			p.not = append(p.not, re)
		}
	}
	return p
}

package suggest

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/prow"
)

// Run is one finished run whose failure texts may be given.
type Run struct {
	Job     string
	BuildID int64
	// Edge is the run's upgrade edge ("4.13->4.14 minor"), or empty.
	Edge string
	// Failed: the run failed (failure or error); otherwise it passed.
	Failed bool
	// Explained: a failed run that shows a symptom of an active rule.
	Explained bool
}

// Kind is where a failure text came from.
type Kind string

// The kinds of failure text.
const (
	// KindJUnit is the failure message of a failed test.
	KindJUnit Kind = "junit"
	// KindLog is an error-like line of a log.
	KindLog Kind = "log"
)

// Text is one failure text of a run.
type Text struct {
	// Run is the index of the run in the runs given to New.
	Run  int
	Kind Kind
	// Test is the failed test's name (KindJUnit). A test that failed
	// without a message is known by its name alone.
	Test string
	// File is the path of the log, relative to the run (KindLog).
	File string
	Text string
}

// Options bound and tune a Collector.
type Options struct {
	// MaxTemplates bounds the distinct templates kept; past it, the rarest
	// are folded into one beginning with the same words, or dropped and
	// counted (Stats). 0 means 200,000.
	MaxTemplates int
	// MinRuns is the least number of failed runs without a symptom that a
	// proposal must explain. 0 means 3, the least hits of a regression.
	MinRuns int
	// Alpha is the significance a proposal's over-representation in failed
	// runs must reach. 0 means 0.05, the analysis' default.
	Alpha float64
	// Rules are the active rules. A failed test's message that none of
	// them matches is unexplained in every failed run, a run a symptom
	// explains too: the symptom names another failure of that run. Without
	// rules, a run a symptom explains is set aside whole.
	Rules *classify.Engine
}

func (o Options) withDefaults() Options {
	if o.MaxTemplates <= 0 {
		o.MaxTemplates = 200_000
	}
	if o.MinRuns <= 0 {
		o.MinRuns = 3
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	return o
}

// maxExample caps the raw text kept as a template's example, and
// maxExamples how many a template keeps: a rule is checked against them.
const (
	maxExample  = 4096
	maxExamples = 3
	maxFiles    = 4
)

// template is the texts that read the same once normalised.
type template struct {
	kind    Kind
	text    string   // the normalised text
	byName  bool     // a test that failed without a message: text is its name
	test    string   // the failed test's name, of the first example (KindJUnit)
	cover   coverage // whether an active rule matches it, once asked
	files   []string // the globs of the logs it was found in (KindLog)
	runs    []uint32 // the runs it was found in, each once
	texts   int      // how many texts
	order   int      // when it was first seen
	cluster int32    // the cluster it is in, from 1, once Propose clustered
	example []string // raw texts
	// messages are failure messages of the test a name template names.
	messages []string
}

// Collector gathers failure texts into templates, one text at a time; its
// memory is that of the templates, not of the texts.
type Collector struct {
	opts      Options
	runs      []Run
	templates map[uint64]*template
	norm      normalizer
	seen      int // templates ever created
	stats     Stats
	edges     map[string]*tally // the runs of each edge, counted once
	jobs      map[string]*tally // the runs of each job, counted once
	// names are the normalised names of tests seen lately: a suite has
	// thousands of tests, and each fails in many runs.
	names map[string]string
	// vocab is how many templates each word is in, once Propose clustered.
	vocab vocabulary
}

// maxNames bounds the normalised test names kept.
const maxNames = 20_000

// Stats counts what a Collector was given and kept.
type Stats struct {
	Texts     int // texts added
	Templates int // distinct templates kept
	// Dropped are the templates left out to bound memory, and their
	// texts: each seen in fewer runs than DroppedBelow when it was.
	Dropped, DroppedTexts, DroppedBelow int
	// Merged are the rare templates folded into one that begins with the
	// same words (skeleton) instead of being dropped.
	Merged int
}

// New returns a Collector for texts of these runs.
func New(runs []Run, opts Options) *Collector {
	return &Collector{opts: opts.withDefaults(), runs: runs, templates: make(map[uint64]*template), names: make(map[string]string)}
}

// Stats returns the counts so far.
func (c *Collector) Stats() Stats {
	s := c.stats
	s.Templates = len(c.templates)
	return s
}

// Add adds one failure text. A text of a run outside the runs given to New
// is ignored, as is a blank one.
func (c *Collector) Add(t Text) {
	if t.Run < 0 || t.Run >= len(c.runs) {
		return
	}
	raw := prow.StripANSI(t.Text)
	c.norm.reset()
	c.norm.text(raw)
	name := strings.TrimSpace(t.Test)
	if len(c.norm.out) == 0 {
		if t.Kind != KindJUnit || name == "" {
			return
		}
	}
	c.stats.Texts++
	if len(c.norm.out) > 0 {
		c.put(t, false, raw)
	}
	if t.Kind == KindJUnit && name != "" {
		// The test's name too: runs that fail one test with messages
		// too different to cluster share its name (a test that failed
		// without a message has only its name to go by).
		c.norm.reset()
		if n, ok := c.names[t.Test]; ok {
			c.norm.out = append(c.norm.out, n...)
		} else {
			c.norm.text(t.Test)
			if len(c.names) >= maxNames {
				clear(c.names)
			}
			c.names[t.Test] = string(c.norm.out)
		}
		tp := c.put(t, true, t.Test)
		// With a message or two it failed with, to tell whether a rule
		// names its failure.
		if msg := strings.TrimSpace(raw); msg != "" && len(tp.messages) < maxExamples && !slices.Contains(tp.messages, msg) {
			tp.messages = append(tp.messages, capText(msg, maxExample))
		}
	}
}

// put adds the normalised text in c.norm of t, raw as it was, to its
// template.
func (c *Collector) put(t Text, byName bool, raw string) *template {
	key := templateKey(t.Kind, byName, c.norm.out)
	tp := c.templates[key]
	if tp == nil {
		tp = &template{kind: t.Kind, text: string(c.norm.out), byName: byName, order: c.seen}
		if t.Kind == KindJUnit {
			tp.test = capText(t.Test, maxExample)
		}
		c.seen++
		c.templates[key] = tp
		if len(c.templates) > c.opts.MaxTemplates {
			c.prune()
		}
	}
	tp.texts++
	run := uint32(t.Run)
	if n := len(tp.runs); n == 0 || tp.runs[n-1] != run {
		// Texts come run by run, so a repeat is nearly always the last
		// run; a run seen before, out of turn, is removed at the end.
		tp.runs = append(tp.runs, run)
	}
	if len(tp.example) < maxExamples && !slices.Contains(tp.example, raw) {
		tp.example = append(tp.example, capText(raw, maxExample))
	}
	if t.Kind == KindLog && len(tp.files) < maxFiles {
		if g := fileGlob(t.File); g != "" && !slices.Contains(tp.files, g) {
			tp.files = append(tp.files, g)
		}
	}
	return tp
}

// templateKey is the key of a template: its kind, whether it is a test's
// name, and its normalised text.
func templateKey(kind Kind, byName bool, norm []byte) uint64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	if byName {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	h.Write(norm)
	return h.Sum64()
}

// prune bounds the templates to three quarters of MaxTemplates: the rare
// ones (seen in fewer runs than a floor, raised until enough go) are first
// folded into one of their kind that begins with the same words
// (skeleton), so that a mode whose every text is a template of its own
// (a word the normaliser cannot know differs in each) is kept as one and
// can still be proposed; only what is still rare is dropped, and counted.
func (c *Collector) prune() {
	target := c.opts.MaxTemplates * 3 / 4
	for floor := 2; len(c.templates) > target; floor++ {
		heads := make(map[string]*template)
		for k, tp := range c.templates {
			if len(tp.runs) >= floor {
				continue
			}
			sk := skeleton(tp)
			if sk == "" {
				continue
			}
			if h := heads[sk]; h != nil {
				h.fold(tp)
				delete(c.templates, k)
				c.stats.Merged++
				continue
			}
			heads[sk] = tp
		}
		for k, tp := range c.templates {
			if len(tp.runs) < floor {
				delete(c.templates, k)
				c.stats.Dropped++
				c.stats.DroppedTexts += tp.texts
				c.stats.DroppedBelow = max(c.stats.DroppedBelow, floor)
			}
		}
	}
}

// skeletonWords is how many of a template's first words its skeleton is.
const skeletonWords = 6

// skeleton is what rare templates are folded by: the kind, the test, and
// the first skeletonWords plain words (letters only) of the text's first
// line; "" when it has fewer.
func skeleton(tp *template) string {
	first, _, _ := strings.Cut(tp.text, "\n")
	var words []string
	for w := range strings.FieldsSeq(first) {
		if len(w) >= 2 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			words = append(words, w)
			if len(words) == skeletonWords {
				return string(tp.kind) + "\x00" + strconv.FormatBool(tp.byName) + "\x00" + tp.test + "\x00" + strings.Join(words, " ")
			}
		}
	}
	return ""
}

// fold adds o's runs, texts, examples and files to tp.
func (tp *template) fold(o *template) {
	tp.runs = append(tp.runs, o.runs...)
	slices.Sort(tp.runs)
	tp.runs = slices.Compact(tp.runs)
	tp.texts += o.texts
	for _, ex := range o.example {
		if len(tp.example) < maxExamples && !slices.Contains(tp.example, ex) {
			tp.example = append(tp.example, ex)
		}
	}
	for _, f := range o.files {
		if len(tp.files) < maxFiles && !slices.Contains(tp.files, f) {
			tp.files = append(tp.files, f)
		}
	}
	for _, m := range o.messages {
		if len(tp.messages) < maxExamples && !slices.Contains(tp.messages, m) {
			tp.messages = append(tp.messages, m)
		}
	}
}

// capText cuts s to at most n bytes at a rune boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// fileGlob is the glob a rule reads a log by: the target directory of a
// multi-stage run (artifacts/<target>/...) and the generated parts of the
// file name (a pod's, a node's) become *, so that the glob names the same
// log in every run. A name with glob syntax in it gives "".
func fileGlob(rel string) string {
	if rel == "" || strings.ContainsAny(rel, "*?[]{}\\") {
		return ""
	}
	parts := strings.Split(rel, "/")
	if len(parts) >= 4 && parts[0] == "artifacts" {
		parts[1] = "*"
	}
	var n normalizer
	for i, p := range parts {
		if i == 1 && parts[1] == "*" {
			continue
		}
		n.reset()
		n.line(p)
		parts[i] = globOf(string(n.out))
	}
	return strings.Join(parts, "/")
}

// globOf turns the placeholders of a normalised name into *.
func globOf(s string) string {
	for ph := range placeholderRE {
		s = strings.ReplaceAll(s, ph, "*")
	}
	for strings.Contains(s, "**") {
		s = strings.ReplaceAll(s, "**", "*")
	}
	return s
}

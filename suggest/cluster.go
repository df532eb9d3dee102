package suggest

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Near-duplicate templates are found as triage finds them, but without its
// quadratic search: triage compares each text with every cluster so far (a
// 4-gram lower bound, then Berghel-Roach edit distance), which is what took
// it hours. Here each template gets a MinHash signature of its token
// shingles; the signature is cut into 8 bands of 4, and only templates
// that share a band (two of Jaccard similarity 0.7 do nine times in ten, of
// 0.5 two times in five) are compared by edit distance, over tokens, not
// bytes, so that <ip> and "refused" each count as one edit.
const (
	sigLen        = 32  // MinHash values per signature
	bands         = 8   // bands of sigLen/bands rows
	minJaccard    = 0.5 // estimated from the signatures, before the edit distance
	minSimilarity = 0.7 // 1 - token edit distance / the longer's tokens
	maxChecks     = 8   // edit distances computed per template at most
	maxTokens     = 160 // tokens compared by edit distance
	maxBucket     = 64  // leaders of a bucket looked at
)

// cluster is a group of near-duplicate templates; the first, seen in the
// most runs, leads it.
type cluster struct {
	members []*template
	// avoid are the lines (normalised, trimmed) a rule of the cluster is
	// not made of: those it shares with the other modes of the cluster it
	// was split from (splitModes).
	avoid map[string]bool
}

// splitModes splits a cluster of one test's failure messages whose members say
// different things on some line (the alert that fired, the operator that
// degraded) into one cluster per thing said, for each that failed in
// minRuns runs or more; the members of the rarer ones stay together, as
// the rest. Lines every member has are what the modes share, never what
// tells them apart: the split clusters, the rest included, avoid them. A cluster whose members
// differ only in what the normaliser left (one mode), or that share no
// line, is returned whole.
//
// A group whose own lines only name its runs' job (ci-operator's
// "\"e2e-aws-ovn-upgrade\" test steps failed" in that job's runs) is no
// mode: jobOf names a run's job, and such groups stay in the rest.
func splitModes(cl *cluster, minRuns int, jobOf func(run uint32) string) []*cluster {
	if len(cl.members) < 2 || cl.members[0].kind != KindJUnit || cl.members[0].byName {
		return []*cluster{cl}
	}
	for _, m := range cl.members[1:] {
		if m.test != cl.members[0].test {
			// Messages of several tests: what tells them apart is
			// the test (a step's name in ci-operator's message), not a
			// mode of one test.
			return []*cluster{cl}
		}
	}
	lines := func(tp *template) []string {
		var out []string
		for l := range strings.SplitSeq(tp.text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	shared := map[string]int{}
	for _, m := range cl.members {
		seen := map[string]bool{}
		for _, l := range lines(m) {
			if !seen[l] {
				seen[l] = true
				shared[l]++
			}
		}
	}
	avoid := map[string]bool{}
	for l, n := range shared {
		if n == len(cl.members) {
			avoid[l] = true
		}
	}
	if len(avoid) == 0 {
		// No line in common: the members are one message in other words
		// (a mode's variants), not one message that names other things.
		return []*cluster{cl}
	}
	groups := map[string][]*template{}
	var keys []string
	for _, m := range cl.members {
		var own []string
		for _, l := range lines(m) {
			if !avoid[l] {
				own = append(own, l)
			}
		}
		k := strings.Join(own, "\n")
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], m)
	}
	if len(keys) < 2 {
		return []*cluster{cl}
	}
	var out []*cluster
	// The rest, too, is no rule of what every mode shares.
	rest := &cluster{avoid: avoid}
	for _, k := range keys {
		g := groups[k]
		if runs := unionRuns(g); k != "" && len(runs) >= minRuns && !namesItsJob(k, runs, jobOf) {
			out = append(out, &cluster{members: g, avoid: avoid})
			continue
		}
		rest.members = append(rest.members, g...)
	}
	if len(out) == 0 {
		return []*cluster{cl}
	}
	if len(rest.members) > 0 {
		out = append(out, rest)
	}
	return out
}

// clustered groups the templates: each, from the one seen in the most runs
// down, joins the first cluster whose leader is a near duplicate of it, or
// leads a new one. The order is total (runs, texts, text, first seen), so
// the same templates always give the same clusters.
func clustered(tps []*template) ([]*cluster, vocabulary) {
	slices.SortFunc(tps, func(a, b *template) int {
		return cmp.Or(
			-cmp.Compare(len(a.runs), len(b.runs)),
			-cmp.Compare(a.texts, b.texts),
			strings.Compare(string(a.kind), string(b.kind)),
			strings.Compare(a.text, b.text),
			cmp.Compare(a.order, b.order))
	})
	intern := make(map[string]rune)
	// Each template's tokens, and how many templates each word is in:
	// a word many messages hold is vocabulary (a namespace, a component),
	// one that a single message holds is most likely a name the
	// normaliser did not know.
	encs := make([]string, len(tps))
	df := make(map[rune]int32)
	last := make(map[rune]int) // the template a word was last counted for, from 1
	var toks []string
	for i, tp := range tps {
		toks = tokenize(tp.text, toks[:0])
		encs[i] = encode(toks, intern)
		for _, t := range toks[:min(len(toks), maxTokens)] {
			if r := intern[t]; slotWord(t) && last[r] != i+1 {
				last[r] = i + 1
				df[r]++
			}
		}
	}
	var dp slotDP
	type leader struct {
		c      *cluster
		sig    [sigLen]uint64
		tokens string // one rune per token
	}
	var leaders []*leader
	buckets := make(map[uint64][]int32)
	var out []*cluster
	for i, tp := range tps {
		enc := encs[i]
		sig := signature(enc)
		keys := bandKeys(&sig, tp.kind, tp.byName)
		// Candidates: the leaders sharing a band, best estimate first.
		var cands []int32
		for _, k := range keys {
			// The first leaders of a bucket lead the largest clusters;
			// a bucket that texts sharing a common phrase crowd is not
			// searched to its end, so the search stays linear.
			bucket := buckets[k]
			for _, li := range bucket[:min(len(bucket), maxBucket)] {
				if !slices.Contains(cands, li) {
					cands = append(cands, li)
				}
			}
		}
		type scored struct {
			li  int32
			est int
		}
		var sc []scored
		for _, li := range cands {
			est := 0
			for i := range sigLen {
				if leaders[li].sig[i] == sig[i] {
					est++
				}
			}
			if float64(est) >= minJaccard*sigLen {
				sc = append(sc, scored{li, est})
			}
		}
		slices.SortFunc(sc, func(a, b scored) int { return cmp.Or(-cmp.Compare(a.est, b.est), cmp.Compare(a.li, b.li)) })
		joined := false
		for i, s := range sc {
			if i == maxChecks {
				break
			}
			if dp.joins(enc, leaders[s.li].tokens, df) {
				leaders[s.li].c.members = append(leaders[s.li].c.members, tp)
				joined = true
				break
			}
		}
		if joined {
			continue
		}
		c := &cluster{members: []*template{tp}}
		out = append(out, c)
		leaders = append(leaders, &leader{c: c, sig: sig, tokens: enc})
		for _, k := range keys {
			buckets[k] = append(buckets[k], int32(len(leaders)-1))
		}
	}
	vocab := make(vocabulary, len(df))
	for t, r := range intern {
		if n := df[r]; n > 0 {
			vocab[t] = n
		}
	}
	return out, vocab
}

// namesItsJob says whether the lines own say nothing but the job of each
// of runs: every run's job name holds one of their dashed words (a step
// or target such as e2e-aws-ovn-upgrade) of six letters or more, or one
// names a step of the job (stepOf). A plain
// word ("openshift") is in every job's name and says nothing of this.
func namesItsJob(own string, runs []uint32, jobOf func(uint32) string) bool {
	var words []string
	for _, w := range strings.FieldsFunc(own, func(r rune) bool {
		return r == '"' || r == ' ' || r == '\'' || r == ':' || r == ',' || r == '\n' || r == '/'
	}) {
		if len(w) >= 6 && strings.Contains(strings.Trim(w, "-"), "-") && !strings.Contains(w, "<") {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return false
	}
	for _, r := range runs {
		job := jobOf(r)
		if !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(job, w) || stepOf(job, w) }) {
			return false
		}
	}
	return true
}

// stepOf says whether w is the name of a step's pod of job, as ci-operator
// names them: the job's target, with which its name ends, a dash and the
// step ("e2e-aws-ovn-upgrade-openshift-e2e-test" in a run of
// "...-e2e-aws-ovn-upgrade").
func stepOf(job, w string) bool {
	for k := range len(w) {
		if w[k] != '-' {
			continue
		}
		if p := w[:k]; len(p) >= 6 && strings.Contains(p, "-") && strings.HasSuffix(job, "-"+p) {
			return true
		}
	}
	return false
}

// tokenize splits a normalised text into tokens: words (a placeholder is
// one), and each other character but a blank. A line break is a token.
func tokenize(s string, out []string) []string {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c == '<' && phAt(s[i:]) > 0:
			k := phAt(s[i:])
			out = append(out, s[i:i+k])
			i += k
		case isAlnum(c) || c == '_':
			k := runLen(s[i:], func(b byte) bool { return isAlnum(b) || b == '_' })
			out = append(out, s[i:i+k])
			i += k
		default:
			_, k := utf8.DecodeRuneInString(s[i:])
			out = append(out, s[i:i+k])
			i += k
		}
	}
	return out
}

// phAt is the length of the placeholder at the start of s, or 0.
func phAt(s string) int {
	end := strings.IndexByte(s, '>')
	if end < 0 || end > 6 {
		return 0
	}
	if _, ok := placeholderRE[s[:end+1]]; ok {
		return end + 1
	}
	return 0
}

// encode maps each token to a rune of its own, so that an edit distance
// over runes is one over tokens. Runes skip the surrogate range, which
// UTF-8 cannot hold; past the last rune, tokens share runes, which can only
// make two texts look closer.
func encode(toks []string, intern map[string]rune) string {
	var b strings.Builder
	for i, t := range toks {
		if i == maxTokens {
			break
		}
		r, ok := intern[t]
		if !ok {
			r = rune(len(intern) + 0x100)
			if r >= 0xD800 {
				r += 0x800
			}
			if r > utf8.MaxRune {
				r = 0x100 + r%0xD000
			}
			intern[t] = r
		}
		b.WriteRune(r)
	}
	return b.String()
}

// signature is the MinHash signature of a token string's shingles: token
// bigrams (two lines that differ in three scattered tokens still share
// most of them, which trigrams would not), or single tokens for texts too
// short for those.
func signature(enc string) [sigLen]uint64 {
	var sig [sigLen]uint64
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	runes := []rune(enc)
	n := 2
	if len(runes) < 4 {
		n = min(1, len(runes))
	}
	if n == 0 {
		n, runes = 1, []rune{0}
	}
	for i := 0; i+n <= len(runes); i++ {
		var x uint64 = 0x9e3779b97f4a7c15
		for _, r := range runes[i : i+n] {
			x = mix(x ^ uint64(r))
		}
		for j := range sig {
			if h := mix(x + uint64(j)*0xbf58476d1ce4e5b9); h < sig[j] {
				sig[j] = h
			}
		}
	}
	return sig
}

// mix is splitmix64's finaliser: a fixed, well-spread 64-bit hash.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// bandKeys are the LSH bucket keys of a signature, one per band, apart for
// each kind of text.
func bandKeys(sig *[sigLen]uint64, kind Kind, byName bool) [bands]uint64 {
	var keys [bands]uint64
	seed := uint64(len(kind))
	if kind == KindLog {
		seed += 0x51
	}
	if byName {
		seed += 0x77
	}
	const rows = sigLen / bands
	for b := range bands {
		x := mix(seed + uint64(b))
		for _, v := range sig[b*rows : (b+1)*rows] {
			x = mix(x ^ v)
		}
		keys[b] = x
	}
	return keys
}

// vocabulary is how many templates each word (slotWord) is in.
type vocabulary map[string]int32

// slotWords is how many templates a word must be in to be vocabulary, and
// slotLetters how long it must be.
const (
	slotWords   = 3
	slotLetters = 3
)

// slotWord says whether a token can fill a slot of a message: a word of
// slotLetters characters or more that begins with a letter (a number, a
// port or a count, is a detail of one failure), not a placeholder.
func slotWord(t string) bool {
	if len(t) < slotLetters || isPlaceholder(t) || !(t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z') {
		return false
	}
	for i := range len(t) {
		if !isAlnum(t[i]) && t[i] != '_' {
			return false
		}
	}
	return true
}

// slotDP is the token edit-distance table joins fills, kept between calls.
type slotDP struct{ d []uint16 }

// joins says whether a template of tokens a joins the cluster whose leader
// has tokens b: they are within the edit distance allowed (minSimilarity
// of the longer's tokens), and not two messages of one shape with other
// words in a slot (slotDiffers).
func (dp *slotDP) joins(a, b string, df map[rune]int32) bool {
	ra, rb := []rune(a), []rune(b)
	n, m := len(ra), len(rb)
	longer := max(n, m)
	if longer == 0 {
		return true
	}
	// The distance is at least the difference in length.
	if float64(longer-min(n, m)) > (1-minSimilarity)*float64(longer) {
		return false
	}
	w := m + 1
	if cap(dp.d) < (n+1)*w {
		dp.d = make([]uint16, (n+1)*w)
	}
	d := dp.d[:(n+1)*w]
	for j := 0; j <= m; j++ {
		d[j] = uint16(j)
	}
	for i := 1; i <= n; i++ {
		d[i*w] = uint16(i)
		for j := 1; j <= m; j++ {
			sub := d[(i-1)*w+j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			d[i*w+j] = min(sub, d[(i-1)*w+j]+1, d[i*w+j-1]+1)
		}
	}
	if 1-float64(d[n*w+m])/float64(longer) < minSimilarity {
		return false
	}
	return !slotDiffers(d, w, ra, rb, df)
}

// slotDiffers says, from the filled table d (rows of w) of ra against rb,
// whether they are two messages of one shape with other words in a slot:
// an alignment of least edits that substitutes one vocabulary word for
// another between tokens both keep ("openshift-etcd" and "openshift-dns",
// "e2e/network/" and "e2e/storage/"). Those are two failures. A phrase
// added or dropped, or words that only one message has (a name the
// normaliser did not know), are one failure written two ways.
func slotDiffers(d []uint16, w int, ra, rb []rune, df map[rune]int32) bool {
	// Back from the end: the ops of one least alignment, matches
	// preferred, then substitutions.
	const (
		match = iota
		subst
		indel
	)
	type op struct {
		kind int
		a, b rune
	}
	var ops []op
	for i, j := len(ra), len(rb); i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && ra[i-1] == rb[j-1] && d[i*w+j] == d[(i-1)*w+j-1]:
			ops = append(ops, op{match, ra[i-1], rb[j-1]})
			i, j = i-1, j-1
		case i > 0 && j > 0 && d[i*w+j] == d[(i-1)*w+j-1]+1:
			ops = append(ops, op{subst, ra[i-1], rb[j-1]})
			i, j = i-1, j-1
		case i > 0 && d[i*w+j] == d[(i-1)*w+j]+1:
			ops = append(ops, op{indel, ra[i-1], 0})
			i--
		default:
			ops = append(ops, op{indel, 0, rb[j-1]})
			j--
		}
	}
	for k, o := range ops {
		if o.kind != subst || df[o.a] < slotWords || df[o.b] < slotWords {
			continue
		}
		if (k == 0 || ops[k-1].kind == match) && (k == len(ops)-1 || ops[k+1].kind == match) {
			return true
		}
	}
	return false
}

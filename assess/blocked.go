package assess

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// BlockedEdge is the draft of one blocked-edges/<to>-<Name>.yaml document:
// the updates into one target release that the symptom regressed.
type BlockedEdge struct {
	To string // the first bad CI payload of the target release (its onset), else the first that showed it
	// FixedIn is the first clean payload after the symptom's end, when the
	// end is significant; empty otherwise (Comments say why).
	FixedIn string
	From    string // a regular expression of the affected from-versions
	URL     string // the symptom's bug; empty when it has none
	Name    string // CamelCase
	Message string
	// Platforms are the cluster_infrastructure_provider types of the
	// platforms CI saw it on; empty when none is known (the rule is then
	// Always).
	Platforms []string
	// Comments mark what CI cannot know.
	Comments []string
	// Edges are the regressed edges into the target, FromVersions the
	// from-versions of their runs that showed it.
	Edges        []string
	FromVersions []string
}

// File is the draft's path in cincinnati-graph-data,
// blocked-edges/<to>-<Name>.yaml, each part a safe file-name part
// (safe.FileName): a target version or a name holding a "/", a ".." or a
// control character names no other file and no other directory.
func (d BlockedEdge) File() string {
	return "blocked-edges/" + safe.FileName(d.To) + "-" + safe.FileName(d.Name) + ".yaml"
}

// infrastructureType maps a job's platform to the Infrastructure type that
// cluster_infrastructure_provider reports.
var infrastructureType = map[string]string{
	"aws": "AWS", "gcp": "GCP", "azure": "Azure", "metal": "BareMetal", "baremetal": "BareMetal",
	"vsphere": "VSphere", "openstack": "OpenStack", "ovirt": "oVirt", "powervs": "PowerVS",
	"ibmcloud": "IBMCloud", "nutanix": "Nutanix", "alibaba": "AlibabaCloud", "libvirt": "Libvirt",
	"kubevirt": "KubeVirt", "equinix": "EquinixMetal", "external": "External", "none": "None",
}

// camel is a symptom id as a blocked edge's name: "pod-network-cross-node"
// is "PodNetworkCrossNode".
func camel(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// releaseRegexp is a release in a from regular expression: "4.13" is
// "4[.]13".
func releaseRegexp(rel string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(rel), `\.`, "[.]")
}

// blockedEdges drafts one document per target release of the edges where
// the symptom is a regression.
func blockedEdges(in analyze.SymptomNumbers, a Assessment) []BlockedEdge {
	type edgeInfo struct{ from, to string }
	edges := map[string]edgeInfo{}
	for _, fv := range in.Extras.FromVersions {
		edges[fv.Edge] = edgeInfo{fv.FromRelease, fv.Release}
	}
	byTarget := map[string][]string{}
	for _, key := range a.Impacted.Block {
		e, ok := edges[key]
		if !ok || e.to == "" {
			continue
		}
		byTarget[e.to] = append(byTarget[e.to], key)
	}
	var out []BlockedEdge
	for _, target := range slices.Sorted(maps.Keys(byTarget)) {
		keys := byTarget[target]
		slices.Sort(keys)
		d := BlockedEdge{Name: camel(in.Symptom.ID), URL: in.Symptom.Bug, Edges: keys}
		// From: the from-releases of the regressed edges.
		var froms []string
		for _, k := range keys {
			f := cmp.Or(edges[k].from, target)
			if !slices.Contains(froms, f) {
				froms = append(froms, f)
			}
		}
		slices.Sort(froms)
		parts := make([]string, len(froms))
		for i, f := range froms {
			parts[i] = releaseRegexp(f)
		}
		d.From = parts[0] + "[.].*"
		if len(parts) > 1 {
			d.From = "(" + strings.Join(parts, "|") + ")[.].*"
		}
		// The platforms: tested on the regressed edges, and showing it.
		tested, affected := map[string]bool{}, map[string]bool{}
		seen := map[string]bool{}
		for _, fv := range in.Extras.FromVersions {
			if !slices.Contains(keys, fv.Edge) {
				continue
			}
			tested[fv.Platform] = true
			if fv.WithSymptom > 0 {
				affected[fv.Platform] = true
				if fv.FromVersion != "" && !seen[fv.FromVersion] {
					seen[fv.FromVersion] = true
					d.FromVersions = append(d.FromVersions, fv.FromVersion)
				}
			}
		}
		slices.Sort(d.FromVersions)
		var affectedTypes, untested []string
		for p := range affected {
			if t, ok := infrastructureType[p]; ok {
				affectedTypes = append(affectedTypes, t)
			} else {
				untested = append(untested, cmp.Or(p, "unknown"))
			}
		}
		slices.Sort(affectedTypes)
		// The rule names the platforms CI saw it on. Those CI never ran
		// the edge on are unknown, not unaffected: the comment says so.
		d.Platforms = affectedTypes
		var spared []string
		for p := range tested {
			if !affected[p] {
				spared = append(spared, cmp.Or(infrastructureType[p], p))
			}
		}
		slices.Sort(spared)
		if len(spared) > 0 {
			d.Comments = append(d.Comments, fmt.Sprintf("CI ran %s on %s too, without it.", strings.Join(keys, ", "), strings.Join(spared, ", ")))
		}
		d.Comments = append(d.Comments, fmt.Sprintf("CI ran %s only on %s: whether other platforms are affected is unknown (use type: Always if they are).",
			strings.Join(keys, ", "), strings.Join(slices.Concat(affectedTypes, spared), ", ")))
		if len(untested) > 0 {
			d.Comments = append(d.Comments, "Platforms with no cluster_infrastructure_provider type known here: "+strings.Join(untested, ", ")+".")
		}
		// To: the onset's first bad payload, else the first payload of the
		// target that showed it.
		if o := a.Regression.Onset; o != nil && o.Found && slices.Contains(keys, o.Edge) {
			d.To = o.FirstBad
		}
		for _, r := range in.Extras.Runs {
			if d.To != "" {
				break
			}
			if slices.Contains(keys, r.Edge) && r.ToVersion != "" {
				d.To = r.ToVersion
				break
			}
		}
		if d.To == "" {
			d.To = target + ".0"
			d.Comments = append(d.Comments, "No run recorded its target version: "+d.To+" stands for the first "+target+" release.")
		}
		toWhat := "the first CI payload that showed it"
		if o := a.Regression.Onset; o != nil && o.Found && d.To == o.FirstBad {
			toWhat = fmt.Sprintf("the first bad CI payload of its onset (the last clean: %s; %d of %d runs before, %d of %d after, %s)",
				o.LastClean, o.HitsBefore, o.RunsBefore, o.HitsAfter, o.RunsAfter, PPhrase(o.PValue))
		}
		d.Comments = append(d.Comments,
			"to is "+toWhat+": replace it with each released "+target+" version that carries the bug (one file each).")
		switch e := a.Regression.End; {
		case e != nil && e.Found && slices.Contains(keys, e.Edge):
			d.FixedIn = e.FirstClean
			d.Comments = append(d.Comments, "fixedIn is the first clean CI payload after its end ("+e.Text+"): replace it with the first released version that carries the fix.")
		case e != nil && e.Payloads >= 2:
			d.Comments = append(d.Comments, "No fixedIn: "+strings.ToLower(e.Text[:1])+strings.TrimSuffix(e.Text[1:], ".")+"; add it when a payload fixes it.")
		default:
			d.Comments = append(d.Comments, "No fixedIn: no payload of these edges is known to fix it; add it when one does.")
		}
		d.Comments = append(d.Comments, "CI cannot know how much of the fleet runs the affected platforms.")
		if d.URL == "" {
			d.Comments = append(d.Comments, "The symptom has no bug: set url to the bug or knowledge article.")
		}
		d.Message = blockedMessage(in, a, keys, affectedTypes, target)
		out = append(out, d)
	}
	return out
}

// blockedMessage is the one paragraph of who is affected and how, from the
// numbers.
func blockedMessage(in analyze.SymptomNumbers, a Assessment, keys, platforms []string, target string) string {
	var b strings.Builder
	title := strings.TrimSpace(cmp.Or(in.Symptom.Title, in.Symptom.ID))
	b.WriteString(strings.ToUpper(title[:1]) + title[1:])
	fmt.Fprintf(&b, " during updates to %s", target)
	if len(platforms) > 0 {
		fmt.Fprintf(&b, " on %s", strings.Join(platforms, ", "))
	}
	b.WriteString(".")
	for _, f := range a.Regression.Edges {
		if slices.Contains(keys, f.Key) && f.Verdict == "regression" {
			fmt.Fprintf(&b, " In CI, %s of %s update runs (%d/%d) showed it, against %s (%d/%d) of %s runs (%s).",
				Percent(float64(f.SampleHits)/float64(f.SampleRuns)), f.Key, f.SampleHits, f.SampleRuns,
				Percent(float64(f.BasisHits)/float64(max(f.BasisRuns, 1))), f.BasisHits, f.BasisRuns, f.BasisLabel, PPhrase(deref(f.PValue)))
		}
	}
	if len(a.Impact.Disruption) > 0 {
		d := a.Impact.Disruption[0]
		fmt.Fprintf(&b, " %s was unreachable for up to %s (P95 %s) in those runs.", d.Backend, Secs(deref(d.With.Max)), Secs(deref(d.With.P95)))
	}
	yes, known := 0, 0
	for _, r := range in.Extras.Runs {
		if !slices.Contains(keys, r.Edge) {
			continue
		}
		if rec, ok := recovered(r); ok {
			known++
			if rec {
				yes++
			}
		}
	}
	if known > 0 {
		fmt.Fprintf(&b, " The cluster recovered by itself (the update completed and the symptom stopped) in %d of those %d runs.", yes, known)
	}
	return b.String()
}

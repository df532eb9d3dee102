// Package assess decides: from the numbers of one symptom, counted from
// the same runs (analyze.SymptomNumbers, which analyze.LoadSymptom reads),
// it answers the four UpgradeBlocker questions (who is impacted, what is
// the impact, how involved is remediation, is it a regression or a flake),
// each with a yes, no, watch or unknown and the sentences that say why,
// and drafts the blocked-edges documents of the edges where it regressed.
// It also says a verdict row in words and numbers (Row, Reason), for every
// format a writer renders.
//
//	in, err := analyze.LoadSymptom(ctx, store, "pod-network-cross-node", analyze.Selection{})
//	if err != nil {
//		return err
//	}
//	a := assess.Assess(in) // pure: the same numbers, the same words
//	return report.WriteAssessment(w, a, "markdown")
//
// Everything here is a pure function of its input: the package reads no
// database, does no I/O and computes no statistics of its own beyond
// intervals and distributions of the numbers it is given, so that it is
// tested from numbers made by hand, without a database. It must not
// render: formats (text, Markdown, JSON, YAML) are package report's.
package assess

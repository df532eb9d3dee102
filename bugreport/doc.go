// Package bugreport reads the text of a bug report as people paste it
// (prose, quoted log lines, Prow links, an `oc get clusterversion -o yaml`
// dump) and drafts its UpgradeBlocker answers: the symptoms its lines show
// (by the rules of package classify), a proposed rule for the lines no
// rule matches (by package suggest's normaliser), the runs it links, and
// the assessment of each symptom from the stored history (package assess).
//
// Parse, Match and Propose are pure: text and rules in, findings out. Draft
// is the one function that reads: the database (package db, read only),
// the artifact cache and, for a linked run neither holds, its bucket, into
// memory. It writes nothing and renders nothing: package report does.
//
//	t := bugreport.Parse(text)
//	r, err := bugreport.Draft(ctx, t, bugreport.Sources{Rules: eng, Store: store, Cache: cc})
//	if err != nil {
//		return err
//	}
//	return report.WriteBug(w, r, "markdown")
package bugreport

package prowcrawl

// Result is how a run ended: the result of its finished.json, or pending
// while it has none.
type Result string

// The results of a run.
const (
	ResultSuccess Result = "success"
	ResultFailure Result = "failure"
	ResultAborted Result = "aborted"
	ResultError   Result = "error"
	// ResultPending: the run has no finished.json yet; it is read again
	// next time, and never counts as a failure.
	ResultPending Result = "pending"
)

// FetchStatus is how much of a run a crawl could read.
type FetchStatus string

// The fetch statuses of a run.
const (
	// FetchComplete: every object of the run was read.
	FetchComplete FetchStatus = "complete"
	// FetchPartial: some objects could not be read; what was read is kept.
	FetchPartial FetchStatus = "partial"
	// FetchError: the run could not be read at all.
	FetchError FetchStatus = "error"
)

// ErrorKind is why an artifact of a run could not be used (RunError.Kind).
type ErrorKind string

// The kinds of RunError.
const (
	ErrorRead  ErrorKind = "read"  // the object could not be read
	ErrorParse ErrorKind = "parse" // it was read but could not be parsed
	ErrorSize  ErrorKind = "size"  // it was larger than the limit; only its first part was used
)

// Scope is the kind of group of runs a rate or a verdict is computed over.
type Scope string

// The scopes of verdicts and rates.
const (
	ScopeJob     Scope = "job"
	ScopeEdge    Scope = "edge"
	ScopeVariant Scope = "variant"
	// ScopePresubmit keys presubmit jobs: their runs test a pull request's
	// code, never a release's, and count in no edge or variant.
	ScopePresubmit Scope = "presubmit"
)

// Verdict is what the analysis says of a symptom in a scope.
type Verdict string

// The verdicts, in the order they are decided.
const (
	// VerdictInsufficient: too few finished runs in the sample or the basis
	// to say anything.
	VerdictInsufficient Verdict = "insufficient"
	// VerdictNone: no sample run shows the symptom.
	VerdictNone Verdict = "none"
	// VerdictRegression: the sample rate is significantly and materially
	// higher than the basis rate.
	VerdictRegression Verdict = "regression"
	// VerdictImproved: the sample rate is significantly and materially lower.
	VerdictImproved Verdict = "improved"
	// VerdictPersistent: nearly every sample run shows it.
	VerdictPersistent Verdict = "persistent"
	// VerdictNew: absent in the basis, present in the sample, not (yet)
	// significant: a regression to watch.
	VerdictNew Verdict = "new"
	// VerdictFlake: it occurs intermittently and no more than in the basis:
	// updating does not increase exposure.
	VerdictFlake Verdict = "flake"
)

package prowcrawl

import "time"

// Job is a job: its name and what the name says about it (JobFromName).
// It is a row of the database's jobs table.
type Job struct {
	Name, Type, Release, FromRelease, Upgrade, Platform, Network, Arch, Topology string
	// Stack is the network stack the name asks for: ipv4, ipv6 or dual
	// (Sippy's NetworkStack); empty when not derived (jobs stored before).
	Stack string
}

// TypePresubmit is Job.Type of a presubmit job.
const TypePresubmit = "presubmit"

// Run is one run of a job: a row of the database's runs table. Empty
// optional strings, a zero Pull and zero times are stored as NULL.
type Run struct {
	Job          string
	BuildID      int64
	Bucket       string
	Path         string // the run's directory in the bucket
	URL          string // the Prow view link
	StartedAt    time.Time
	FinishedAt   time.Time
	Result       Result // success, failure, aborted, error or pending
	Release      string
	FromRelease  string
	Upgrade      string
	FromVersion  string
	ToVersion    string
	UpgradeState string // Completed, Partial or empty
	// UpgradeStarted is whether the run's upgrade began (prow.UpgradeBegan);
	// nil when unknown, which counts as started.
	UpgradeStarted *bool
	Tag            string
	FromTag        string
	Pull           int
	FetchStatus    FetchStatus // complete, partial or error
	FetchError     string
	// FetchAttempts counts the crawls in a row that could not read the run
	// whole (0 when it is complete); GivenUpAt, unless zero, is when the
	// crawler stopped reading it again.
	FetchAttempts int
	GivenUpAt     time.Time
	ObjectsRead   int
	BytesRead     int64
	CrawledAt     time.Time // the time of the Write when zero
	// Overall is Sippy's overall result of the run (OverallOf); empty when
	// not known (stored before it was derived).
	Overall OverallResult
	// ClusterNetworks and ServiceNetworks are the run's own networks
	// (CIDRs, IPv4 and IPv6), from gather-extra's config-resources.json;
	// empty when the run does not say.
	ClusterNetworks, ServiceNetworks []string
}

// Test is one test case of a run: a row of tests.
type Test struct {
	Suite, Name string
	Status      string // pass, fail, flake or skip
	DurationS   float64
	Message     string
}

// RunError is an artifact of a run that could not be used: a row of
// run_errors.
type RunError struct {
	Object  string
	Kind    ErrorKind // read, parse or size
	Message string
}

// Record is everything a crawl learned about one run. Writing it replaces
// what the database held about that run.
type Record struct {
	Job      Job
	Run      Run // Run.Job may be left empty: it is Job.Name
	Tests    []Test
	Errors   []RunError
	Symptoms []RunSymptom
	// Disruptions are the run's rows of run_disruptions.
	Disruptions []RunDisruption
	// Rules are the versions of the rules that classified the run, matched
	// or not: the runs each rule's rates count. Nil means the rules active
	// in the database (SyncSymptoms, which a crawl calls with the rules it
	// classifies with) read it; a run no rule read has NotClassified set.
	Rules []RuleVersion
	// NotClassified says that no rule read the run (a crawl without
	// rules): it counts in no rule's rates until one does.
	NotClassified bool
}

// RunSymptom is a symptom a run shows, with its first evidence: a row of
// run_symptoms. The symptom must be in the symptoms table (see
// SyncSymptoms).
type RunSymptom struct {
	SymptomID string
	Hits      int
	File      string
	Line      int
	Excerpt   string
	At        time.Time // the time of the first evidence, zero when unknown
	LastAt    time.Time // the time of the last evidence, zero when unknown
	RuleHash  string    // the version of the rule that found it (classify.Rule.Hash)
}

// RunDisruption is how long one backend of a run could not be reached,
// according to one file: a row of run_disruptions.
type RunDisruption struct {
	File        string  // the object the numbers come from
	Backend     string  // the entry's Name, e.g. kube-api-new-connections
	BackendName string  // e.g. kube-api; empty when unknown
	Connection  string  // new, reused or empty
	Seconds     float64 // NaN when the file gave no duration
	Source      string  // DisruptionFromFile or DisruptionFromEvents
}

// The sources of RunDisruption rows.
const (
	DisruptionFromFile   = "backend-disruption"
	DisruptionFromEvents = "events"
)

// Cursor is where the crawl of a job in a bucket stopped: the highest build id
// up to which every listed run was stored.
type Cursor struct {
	Bucket, Job string
	BuildID     int64
	StartedAt   time.Time
}

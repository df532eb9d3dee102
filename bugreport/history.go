package bugreport

// History is how often the stored runs show a proposed symptom, from a
// search of their cached files with the rule's expression.
type History struct {
	// Searched counts the stored runs whose cached files were searched;
	// NotCached those the cache does not hold.
	Searched  int `json:"searched_runs"`
	NotCached int `json:"not_cached_runs"`
	// Runs counts the runs with a matching line, Failed those that failed.
	Runs   int `json:"runs_with"`
	Failed int `json:"failed_with"`
	// Edges are the runs per edge (finished runs whose upgrade began).
	Edges []EdgeShare `json:"edges"`
	// FirstSeen and LastSeen are the start times of the first and last
	// matching run (RFC 3339).
	FirstSeen string   `json:"first_seen,omitempty"`
	LastSeen  string   `json:"last_seen,omitempty"`
	Jobs      []string `json:"jobs"`
	Examples  []string `json:"examples"`
}

// EdgeShare is how many of an edge's runs show a proposed symptom.
type EdgeShare struct {
	Edge     string `json:"edge"`
	Runs     int    `json:"finished_runs"`
	RunsWith int    `json:"runs_with"`
}

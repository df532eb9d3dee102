package bugreport

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/openshift-eng/prowcrawl/prow"
)

// Link is a run a bug report links to.
type Link struct {
	// URL is the link as the text wrote it.
	URL string
	// Bucket and Path are where the run is: its bucket and its directory.
	Bucket, Path string
	// Job and BuildID name the run.
	Job     string
	BuildID int64
}

// linkPattern finds the links of a text: up to a blank, a quote, or the
// brackets that enclose a link in Markdown, Jira and e-mail.
var linkPattern = regexp.MustCompile(`(?:https?|gs)://[^\s"'<>()\[\]{}|\\^` + "`" + `]+`)

// links finds the runs the lines link to, each once: Prow's pages in
// every form (prow.ci.openshift.org/view/gs/BUCKET/..., the older
// prow.svc.ci.openshift.org/view/gcs/BUCKET/...), gcsweb's
// (gcsweb-ci.../gcs/BUCKET/...), the bucket's own
// (storage.googleapis.com/BUCKET/..., gs://BUCKET/...), to the run or to
// a file in it.
func links(lines []string) []Link {
	var out []Link
	seen := make(map[string]bool)
	for _, l := range lines {
		for _, u := range linkPattern.FindAllString(l, -1) {
			u = strings.TrimRight(u, ".,;:!?*_")
			bucket, obj, ok := objectOf(u)
			if !ok {
				continue
			}
			rp, ok := runOf(obj)
			if !ok || seen[bucket+"/"+rp.Prefix] {
				continue
			}
			seen[bucket+"/"+rp.Prefix] = true
			out = append(out, Link{URL: u, Bucket: bucket, Path: rp.Prefix, Job: rp.Job, BuildID: rp.BuildID})
		}
	}
	return out
}

// objectOf is the bucket and the object path a link names.
func objectOf(u string) (bucket, obj string, ok bool) {
	var rest string
	if r, gs := strings.CutPrefix(u, "gs://"); gs {
		rest = r
	} else {
		p, err := url.Parse(u)
		if err != nil {
			return "", "", false
		}
		path := p.Path
		switch host := p.Hostname(); {
		case strings.HasPrefix(host, "gcsweb"):
			_, rest, ok = strings.Cut(path, "/gcs/")
		case host == "storage.googleapis.com":
			rest, ok = strings.TrimPrefix(path, "/"), true
		case host == "console.cloud.google.com":
			_, rest, ok = strings.Cut(path, "/storage/browser/")
		case strings.Contains(host, "prow") || strings.HasPrefix(host, "deck"):
			for _, view := range []string{"/view/gs/", "/view/gcs/"} {
				if _, r, found := strings.Cut(path, view); found {
					rest, ok = r, true
					break
				}
			}
		}
		if !ok {
			return "", "", false
		}
	}
	bucket, obj, _ = strings.Cut(strings.Trim(rest, "/"), "/")
	return bucket, obj, bucket != "" && obj != ""
}

// runOf is the run whose directory obj is, or is below.
func runOf(obj string) (prow.RunPath, bool) {
	segs := strings.Split(strings.Trim(obj, "/"), "/")
	for k := 3; k <= min(len(segs), 6); k++ {
		if rp, ok := prow.ParseRunPath(strings.Join(segs[:k], "/")); ok {
			return rp, true
		}
	}
	return prow.RunPath{}, false
}

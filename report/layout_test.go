package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

// layoutWidth is the window a release engineer's laptop gives the page.
const layoutWidth = 1280

// layoutScript measures the page once it is laid out and writes what does
// not fit into the body's data-layout attribute: an element whose right
// edge is past the window, a page that scrolls sideways, and a chart's
// text that lies outside its chart (an SVG clips it). The page itself has
// no script; the test adds this one to a copy.
const layoutScript = `<script>
(() => {
  const out = [], w = document.documentElement.clientWidth;
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + (el.textContent || "").trim().slice(0, 60);
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 0.5) out.push("past the window (" + Math.round(r.right) + " px): " + name(el));
  }
  if (document.documentElement.scrollWidth > w) out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " px");
  for (const svg of document.querySelectorAll("svg")) {
    const b = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5))
        out.push("clipped in " + (svg.id || svg.getAttribute("aria-labelledby")) + ": " + t.textContent);
    }
  }
  document.body.setAttribute("data-layout", JSON.stringify(out));
})();
</script>`

// chromiumRun runs headless Chromium on file with the window layoutWidth
// wide and height high, and extra flags.
func chromiumRun(t *testing.T, bin, dir, file string, height int, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=" + strconv.Itoa(layoutWidth) + "," + strconv.Itoa(height)}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+file)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestHTMLLayout loads the pages of the fixture (by edge, by job, by
// variant) in Chromium 1280 pixels wide and reads from the DOM that
// nothing runs past the window, nothing scrolls sideways and no chart
// clips its text: the verdict of every row and the open regressions'
// answers are on screen.
func TestHTMLLayout(t *testing.T) {
	bin := chromium(t)
	d := openFixture(t)
	for _, q := range []analyze.TableQuery{{Trend: true}, {By: "job", Trend: true}, {By: "variant", Trend: true}} {
		t.Run(cmpOrEdge(q.By), func(t *testing.T) {
			var page bytes.Buffer
			if err := WriteHTML(&page, load(t, d, q), fixtureAnswers(t, d)...); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "report.html")
			withScript := strings.Replace(page.String(), "</body>", layoutScript+"\n</body>", 1)
			if err := os.WriteFile(file, []byte(withScript), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := chromiumRun(t, bin, dir, file, 900, "--dump-dom")
			m := regexp.MustCompile(`data-layout="([^"]*)"`).FindSubmatch(dom)
			if m == nil {
				t.Fatalf("the layout script did not run: no data-layout in the DOM (%d bytes)", len(dom))
			}
			var problems []string
			if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &problems); err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Error(p)
			}
			if q.By == "" && !strings.Contains(page.String(), "the UpgradeBlocker questions") {
				t.Error("the page has no answers of its open regressions")
			}
		})
	}
}

func cmpOrEdge(by string) string {
	if by == "" {
		return "edge"
	}
	return by
}

// TestHTMLScreenshot compares a screenshot of the fixture's page, 1280
// pixels wide, with testdata/edge.png: at most 2% of its pixels may differ
// by more than a sixteenth in a channel (fonts render a little apart
// from one Chromium to the next). go test ./report -update rewrites it.
func TestHTMLScreenshot(t *testing.T) {
	bin := chromium(t)
	d := openFixture(t)
	var page bytes.Buffer
	if err := WriteHTML(&page, load(t, d, analyze.TableQuery{Trend: true}), fixtureAnswers(t, d)...); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	chromiumRun(t, bin, dir, file, 1600, "--screenshot="+shot)
	got, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "edge.png")
	if testutil.Updating() {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./report -update writes it)", err)
	}
	a, b := decodePNG(t, got), decodePNG(t, want)
	if a.Bounds() != b.Bounds() {
		t.Fatalf("screenshot %v, golden %v", a.Bounds(), b.Bounds())
	}
	differ, total := 0, a.Bounds().Dx()*a.Bounds().Dy()
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) {
				differ++
			}
		}
	}
	t.Logf("%d of %d pixels differ (%.2f%%)", differ, total, 100*float64(differ)/float64(total))
	if differ*50 > total {
		os.WriteFile(filepath.Join(t.TempDir(), "got.png"), got, 0o644)
		t.Errorf("the page's screenshot differs from testdata/edge.png in %d of %d pixels (more than 2%%): look at both, and go test ./report -update if the change is meant", differ, total)
	}
}

// far says two 16-bit channels differ by more than a sixteenth.
func far(a, b uint32) bool { return max(a, b)-min(a, b) > 0xffff/16 }

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// fixtureAnswers are the assessments of the symptoms of the fixture's open
// regressions, as report --format html computes them.
func fixtureAnswers(t *testing.T, d *db.DB) []assess.Assessment {
	t.Helper()
	var out []assess.Assessment
	for _, r := range load(t, d, analyze.TableQuery{Trend: true}).Open {
		if slices.ContainsFunc(out, func(a assess.Assessment) bool { return a.SymptomID == r.Symptom }) {
			continue
		}
		in, err := analyze.LoadSymptom(t.Context(), d, r.Symptom, analyze.Selection{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, assess.Assess(in))
	}
	return out
}

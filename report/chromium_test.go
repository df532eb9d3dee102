package report

import (
	"github.com/openshift-eng/prowcrawl/analyze"

	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium is the headless browser to render the HTML report with. Without
// one the test is skipped, except in CI, which must have it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: install chromium (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); the HTML report is not rendered")
	return ""
}

// rgb parses "#rrggbb".
func rgb(t *testing.T, hex string) [3]uint8 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		t.Fatalf("colour %q: %v", hex, err)
	}
	return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
}

// countColors counts the pixels of img within 2 of each colour in each channel.
func countColors(img image.Image, colors map[string][3]uint8) map[string]int {
	n := map[string]int{}
	b := img.Bounds()
	type named struct {
		name string
		c    [3]uint8
	}
	var cs []named
	for name, c := range colors {
		cs = append(cs, named{name, c})
	}
	white := false // whether some colour is white, within 2
	for _, c := range colors {
		white = white || c[0] >= 253 && c[1] >= 253 && c[2] >= 253
	}
	near := func(a uint8, b uint8) bool { return abs(int(a)-int(b)) <= 2 }
	count := func(r, g, bl uint8) {
		if r == 255 && g == 255 && bl == 255 && !white {
			return // most of a page, and none of the colours counted
		}
		for _, c := range cs {
			if near(r, c.c[0]) && near(g, c.c[1]) && near(bl, c.c[2]) {
				n[c.name]++
			}
		}
	}
	// A screenshot is opaque: its bytes are its colours, read directly
	// (img.At for every pixel of a long page takes seconds).
	switch m := img.(type) {
	case *image.NRGBA:
		for i := 0; i+3 < len(m.Pix); i += 4 {
			count(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		}
	case *image.RGBA:
		for i := 0; i+3 < len(m.Pix); i += 4 {
			count(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		}
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				count(uint8(r>>8), uint8(g>>8), uint8(bl>>8))
			}
		}
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func atof(b []byte) float64 {
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

// barArea is the area that the page's opaque rectangles of colour (the
// bars and the legends' squares) fill whole pixels of (a bar's fractional
// last column is blended with the background), less what each bar's 95 %
// interval (a black line 1.5 pixels thick across its middle, with a tick
// at each end) covers of it.
func barArea(t *testing.T, page []byte, color string) int {
	t.Helper()
	re := regexp.MustCompile(`<rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)" height="([0-9.]+)" fill="` + color + `"/?>`)
	area := 0
	for _, m := range re.FindAllSubmatch(page, -1) {
		area += int(math.Floor(atof(m[1])) * atof(m[2]))
	}
	interval := regexp.MustCompile(`<rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)" height="16" fill="` + color + `"><title>[^<]*</title></rect>\s*<line x1="([0-9.]+)" x2="([0-9.]+)"`)
	for _, m := range interval.FindAllSubmatch(page, -1) {
		x0, x1 := atof(m[1]), atof(m[1])+atof(m[2])
		lo, hi := atof(m[3]), atof(m[4])
		// The line's 1.5 pixels blend two rows.
		area -= 2 * int(math.Max(0, math.Min(hi, x1)-math.Max(lo, x0)))
		for _, tick := range []float64{lo, hi} {
			if tick > x0 && tick < x1 {
				area -= 2 * 8 // a tick of 8 rows blends two columns
			}
		}
	}
	return area
}

// markArea is the most that the disruption charts' marks of colour (each
// run a dot of radius 3.5, the worst run a tick 3 pixels wide and 16 high)
// can cover: dots of equal runs overlap, so they cover less.
func markArea(page []byte, color string) int {
	dots := strings.Count(string(page), `r="3.5" fill="`+color+`"/>`)
	ticks := strings.Count(string(page), `stroke="`+color+`" stroke-width="3"/>`)
	return int(float64(dots)*math.Pi*3.5*3.5) + ticks*3*16
}

// lightArea is the area of the disruption charts' light bars of colour
// (the median to the 95th percentile, drawn at opacity 0.35), at least 1.5
// pixels wide.
func lightArea(page []byte, color string) int {
	re := regexp.MustCompile(`<rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)" height="([0-9.]+)" fill="` + color + `" opacity="0.35"/>`)
	area := 0
	for _, m := range re.FindAllSubmatch(page, -1) {
		area += int(math.Floor(atof(m[1])) * atof(m[2]))
	}
	return area
}

// light is c drawn at opacity 0.35 on white.
func light(c [3]uint8) [3]uint8 {
	var out [3]uint8
	for i, v := range c {
		out[i] = uint8(math.Round(255 - 0.35*(255-float64(v))))
	}
	return out
}

// TestHTMLInChromium renders the HTML report of the fixture in headless
// Chromium, the whole page in one screenshot, and checks that the charts
// were drawn: it holds as many pixels of the sample and basis bars'
// colours as the bars cover (with the disruption charts' dots and ticks in
// the same colours at most), the disruption charts' light bars, and the
// markers of the first trend line.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	var page bytes.Buffer
	if err := WriteHTML(&page, load(t, openFixture(t), analyze.TableQuery{Trend: true})); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	if err := os.WriteFile(html, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Taller than the page, so that every chart is in the screenshot; the
	// blank rows at its bottom show that the page ended above.
	const width, height = 1280, 5600
	shot := filepath.Join(dir, "report.png")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height),
		"--hide-scrollbars", "file://"+html)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	bottom := image.Rect(0, height-200, width, height)
	if n := countColors(img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(bottom), map[string][3]uint8{"white": {255, 255, 255}}); n["white"] != bottom.Dx()*bottom.Dy() {
		t.Fatalf("the page is taller than the %d-pixel screenshot: %d of the bottom rows' pixels are not white", height, bottom.Dx()*bottom.Dy()-n["white"])
	}

	sample, basis := rgb(t, colorSample), rgb(t, colorBasis)
	n := countColors(img, map[string][3]uint8{
		"sample": sample, "basis": basis, "trend": rgb(t, trendColors[0]),
		"light sample": light(sample), "light basis": light(basis),
	})
	t.Logf("pixels: %v", n)
	for _, c := range []struct{ name, color string }{{"sample", colorSample}, {"basis", colorBasis}} {
		bars, marks := barArea(t, page.Bytes(), c.color), markArea(page.Bytes(), c.color)
		if bars < 1000 {
			t.Fatalf("the page's %s bars cover %d pixels: the fixture draws too little to test", c.name, bars)
		}
		t.Logf("%s: %d pixels drawn, bars cover %d, disruption marks at most %d", c.name, n[c.name], bars, marks)
		if got := n[c.name]; got < bars*9/10 || got > (bars+marks)*11/10 {
			t.Errorf("%d pixels of the %s bars' colour %s, want %d to %d: the bar charts did not render", got, c.name, c.color, bars*9/10, (bars+marks)*11/10)
		}
		// The light bars of the disruption charts, partly under their dots.
		lights := lightArea(page.Bytes(), c.color)
		t.Logf("light %s: %d pixels drawn, light bars cover %d", c.name, n["light "+c.name], lights)
		if lights < 500 {
			t.Fatalf("the page's light %s bars cover %d pixels: the fixture draws too little disruption to test", c.name, lights)
		}
		if got := n["light "+c.name]; got < lights/3 || got > lights*11/10 {
			t.Errorf("%d pixels of the light %s bars' colour, want %d to %d: the disruption charts did not render", got, c.name, lights/3, lights*11/10)
		}
	}
	// Each week with runs is a marker of the trend line (its radius grows
	// with the runs under it), on a line through them.
	var markers float64
	for _, m := range regexp.MustCompile(`r="([0-9.]+)" fill="`+trendColors[0]+`">`).FindAllStringSubmatch(page.String(), -1) {
		r, _ := strconv.ParseFloat(m[1], 64)
		markers += math.Pi * r * r
	}
	if want := int(markers * 0.8); markers < 200 || n["trend"] < want {
		t.Errorf("%d pixels of the first trend line's colour %s, want at least %d for its markers: the trend charts did not render",
			n["trend"], trendColors[0], want)
	}
}

// TestHTMLSelfContained: the page loads nothing: no scripts, no styles or
// images from elsewhere; the only addresses are links to bugs.
func TestHTMLSelfContained(t *testing.T) {
	var page bytes.Buffer
	if err := WriteHTML(&page, load(t, openFixture(t), analyze.TableQuery{Trend: true})); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", " src=", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(\w+)="(https?:[^"]*)"`).FindAllStringSubmatch(s, -1) {
		if m[1] != "href" && m[1] != "xmlns" {
			t.Errorf("%s=%q loads from the network", m[1], m[2])
		}
	}
	for _, want := range []string{`role="img"`, `<title id="bars-pod-network-cross-node-title">`, `<desc id="trend-pod-network-cross-node-desc">`} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

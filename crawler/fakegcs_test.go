package crawler

import (
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/internal/fakegcs"
)

// emulator is fake-gcs-server behind a real loopback listener, with every
// request counted and, once faults are set, disturbed, reached through
// STORAGE_EMULATOR_HOST as a user would.
type emulator struct {
	fake   *fakestorage.Server
	srv    *httptest.Server
	addr   string
	bucket string

	mu      sync.Mutex
	lists   int
	offsets map[string]string // the startOffset of each listing, by prefix
	queries []url.Values      // the query of every listing, in order
	reads   []string          // object names downloaded, in order
	methods map[string]int    // requests by HTTP method
	faults  *faults
	seen    map[string]int // times each request was made, for the fault draw
	tally   faultCounts
	latency time.Duration // added to every request, as a distant bucket would
	// Recorded answers, by request (see record).
	recording bool
	recorded  map[string]*httptest.ResponseRecorder
	replay    map[string]*httptest.ResponseRecorder
}

// newEmulator serves objects from bucket; it sets STORAGE_EMULATOR_HOST for
// the test, so tests using it cannot run in parallel.
func newEmulator(t testing.TB, bucket string, objs []fakestorage.Object, opts ...func(*fakestorage.Options)) *emulator {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &emulator{addr: l.Addr().String(), bucket: bucket, methods: make(map[string]int), seen: make(map[string]int)}
	// Buckets must exist even when empty.
	objs = append([]fakestorage.Object(nil), objs...)
	o := fakestorage.Options{
		InitialObjects: objs,
		NoListener:     true,
		PublicHost:     e.addr, // XML-API reads are routed by host
	}
	for _, opt := range opts {
		opt(&o)
	}
	fake, err := fakestorage.NewServerWithOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	e.fake = fake
	srv := httptest.NewUnstartedServer(e.count(e.disturb(e.replayed(fake.HTTPHandler()))))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	e.srv = srv
	t.Cleanup(func() { srv.Close(); fake.Stop() })
	t.Setenv("STORAGE_EMULATOR_HOST", e.addr)
	return e
}

func (e *emulator) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.methods[r.Method]++
		latency := e.latency
		p := r.URL.EscapedPath()
		switch {
		case strings.HasSuffix(p, "/o") && strings.HasPrefix(p, "/storage/v1/b/"):
			e.lists++
			if e.offsets == nil {
				e.offsets = make(map[string]string)
			}
			e.offsets[r.URL.Query().Get("prefix")] = r.URL.Query().Get("startOffset")
			e.queries = append(e.queries, r.URL.Query())
		case strings.HasPrefix(p, "/storage/v1/b/") && r.URL.Query().Get("alt") == "media":
			name, _ := url.PathUnescape(p[strings.Index(p, "/o/")+3:])
			e.reads = append(e.reads, name)
		case strings.HasPrefix(p, "/"+e.bucket+"/"):
			name, _ := url.PathUnescape(strings.TrimPrefix(p, "/"+e.bucket+"/"))
			e.reads = append(e.reads, name)
		}
		e.mu.Unlock()
		time.Sleep(latency)
		h.ServeHTTP(w, r)
	})
}

// Recording and replaying: with recording on, the emulator keeps its
// answer to every GET (but ranged ones); with replay set, it answers the
// same requests with those recordings, byte for byte, headers included.
// fake-gcs-server finds an object by a linear scan that formats two strings
// per object in the bucket, and lists by another: over a bucket of a few
// thousand objects that is a millisecond of CPU per request, more than the
// latency a benchmark wants to measure against on a 2-core machine. The
// answers stay the emulator's own.
func (e *emulator) record(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.recording = on
	if on && e.recorded == nil {
		e.recorded = make(map[string]*httptest.ResponseRecorder)
	}
}

// replayRecorded turns replaying the recorded answers on or off.
func (e *emulator) replayRecorded(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.replay = nil
	if on {
		e.replay = e.recorded
	}
}

// replayed records and replays answers (see record).
func (e *emulator) replayed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Range") != "" {
			h.ServeHTTP(w, r)
			return
		}
		key := r.URL.RequestURI() + "|" + r.Header.Get("Accept-Encoding")
		e.mu.Lock()
		rec, recording := e.replay[key], e.recording
		e.mu.Unlock()
		if rec == nil && recording {
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			e.mu.Lock()
			e.recorded[key] = rec
			e.mu.Unlock()
		}
		if rec == nil {
			h.ServeHTTP(w, r)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// counts returns and resets the request counters.
func (e *emulator) counts() (lists int, reads []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	lists, reads = e.lists, e.reads
	e.lists, e.reads = 0, nil
	return lists, reads
}

// listOffsets returns and forgets the startOffset of each listing made
// since the last call, by prefix.
func (e *emulator) listOffsets() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	o := e.offsets
	e.offsets = nil
	return o
}

// bucketObjects loads a directory mirroring a bucket (fakegcs.Objects),
// every object stored as plain text.
func bucketObjects(t testing.TB, dir, bucket string) []fakestorage.Object {
	t.Helper()
	return fakegcs.Objects(t, dir, bucket, func(o *fakestorage.Object) bool {
		o.ContentType = "text/plain"
		return true
	})
}

// faults says how often the emulator disturbs requests. Each request's
// fate is drawn from a hash of the seed, the request (method, path and
// query) and how many times the same request came before, so a crawl
// meets the same faults whatever order its workers make requests in.
type faults struct {
	Seed uint64
	// Rates, each of all requests: 503 and 429 answers, connections reset
	// before the answer, and answers cut off after half the body.
	Unavailable, TooMany, Reset, Truncate float64
	// Latency is the rate of requests delayed by up to MaxDelay (on top
	// of any other fault).
	Latency  float64
	MaxDelay time.Duration
	// Hang, when it reports true, leaves a request without an answer until
	// the client gives up; Stall sends half the body, then nothing; Cut
	// sends half the body without a length or a hash and closes the
	// connection, so that the answer looks whole.
	Hang, Stall, Cut func(*http.Request) bool
}

// faultCounts is what the emulator served and injected.
type faultCounts struct {
	Requests, Unavailable, TooMany, Reset, Truncated, Delayed, Hung, Stalled, Cut int
}

// Failed counts the requests that did not get their whole answer.
func (c faultCounts) Failed() int {
	return c.Unavailable + c.TooMany + c.Reset + c.Truncated + c.Hung + c.Stalled + c.Cut
}

func (c faultCounts) String() string {
	return fmt.Sprintf("%d requests, %d failed (%.1f%%): %d 503, %d 429, %d reset, %d truncated; %d delayed",
		c.Requests, c.Failed(), 100*float64(c.Failed())/float64(max(c.Requests, 1)),
		c.Unavailable, c.TooMany, c.Reset, c.Truncated, c.Delayed)
}

// setFaults starts disturbing requests (nil stops) and resets the counts.
// While faults are set, every request gets a connection of its own: the
// Go client silently repeats a request whose reused connection broke, and
// whether one is reused depends on timing, which would make the faults
// depend on it too.
func (e *emulator) setFaults(f *faults) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults, e.tally = f, faultCounts{}
	clear(e.seen)
	e.srv.Config.SetKeepAlivesEnabled(f == nil)
}

// faultCounts returns the counts since setFaults.
func (e *emulator) faultCounts() faultCounts {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tally
}

// draw returns two numbers in [0, 1) for the nth time this request is made.
func draw(seed uint64, key string, n int) (float64, float64) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", seed, key, n)
	x := h.Sum64()
	next := func() float64 { // splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float64(z>>11) / (1 << 53)
	}
	return next(), next()
}

type fault int

const (
	faultNone fault = iota
	faultUnavailable
	faultTooMany
	faultReset
	faultTruncate
	faultHang
	faultStall
	faultCut
)

// disturb injects the faults set with setFaults in front of h.
func (e *emulator) disturb(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		f := e.faults
		if f == nil {
			e.mu.Unlock()
			h.ServeHTTP(w, r)
			return
		}
		// Leave out of the draw what varies from one run to the next: the
		// object generation a resumed read pins (a creation time) and the
		// order of the fields a listing selects.
		q := r.URL.Query()
		q.Del("generation")
		q.Del("fields")
		key := r.Method + " " + r.URL.EscapedPath() + "?" + q.Encode() + " " + r.Header.Get("Range")
		n := e.seen[key]
		e.seen[key]++
		u, v := draw(f.Seed, key, n)

		kind := faultNone
		switch {
		case f.Hang != nil && f.Hang(r):
			kind = faultHang
		case f.Stall != nil && f.Stall(r):
			kind = faultStall
		case f.Cut != nil && f.Cut(r):
			kind = faultCut
		case u < f.Unavailable:
			kind = faultUnavailable
		case u < f.Unavailable+f.TooMany:
			kind = faultTooMany
		case u < f.Unavailable+f.TooMany+f.Reset:
			kind = faultReset
		case u < f.Unavailable+f.TooMany+f.Reset+f.Truncate:
			kind = faultTruncate
		}
		var delay time.Duration
		if v < f.Latency {
			delay = time.Duration(v / f.Latency * float64(f.MaxDelay))
		}
		e.tally.Requests++
		if delay > 0 {
			e.tally.Delayed++
		}
		e.mu.Unlock()

		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		switch kind {
		case faultNone:
			h.ServeHTTP(w, r)
			return
		case faultUnavailable, faultTooMany:
			code := http.StatusServiceUnavailable
			if kind == faultTooMany {
				code = http.StatusTooManyRequests
			}
			e.counted(kind)
			http.Error(w, http.StatusText(code), code)
			return
		case faultHang:
			e.counted(kind)
			<-r.Context().Done()
			return
		case faultReset:
			e.counted(kind)
			resetConn(w)
			return
		}
		// Truncate and stall: the real answer, cut after half its body.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code >= 300 || len(body) < 2 {
			e.counted(faultReset) // nothing to cut: reset instead
			resetConn(w)
			return
		}
		e.counted(kind)
		if kind == faultCut {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\nConnection: close\r\n", rec.Code, http.StatusText(rec.Code))
			// Without the hash too, or the client's CRC check would
			// catch the cut before the crawler's own check does.
			h := rec.Header().Clone()
			h.Del("Content-Length")
			h.Del("X-Goog-Hash")
			_ = h.Write(conn)
			_, _ = conn.Write([]byte("\r\n"))
			_, _ = conn.Write(body[:len(body)/2])
			return
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body[:len(body)/2])
		http.NewResponseController(w).Flush()
		if kind == faultStall {
			<-r.Context().Done()
		}
		// The server closes the connection without logging.
		panic(http.ErrAbortHandler)
	})
}

func (e *emulator) counted(kind fault) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch kind {
	case faultUnavailable:
		e.tally.Unavailable++
	case faultTooMany:
		e.tally.TooMany++
	case faultReset:
		e.tally.Reset++
	case faultTruncate:
		e.tally.Truncated++
	case faultHang:
		e.tally.Hung++
	case faultStall:
		e.tally.Stalled++
	case faultCut:
		e.tally.Cut++
	}
}

// resetConn closes the connection under a request with a TCP reset.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

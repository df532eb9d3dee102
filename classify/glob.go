package classify

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// globRegexp translates a glob over slash-separated paths into an
// unanchored regular expression:
//
//   - any run of characters within one path segment
//     **     any run of characters across segments; "**/" also matches nothing
//     ?      one character other than '/'
//     [abc]  one of the characters of the class; [!abc] or [^abc] negates it;
//     a-z ranges
//     {a,b}  one of the alternatives, which may hold globs and nest
//     \x     the character x
func globRegexp(glob string) (string, error) {
	switch {
	case glob == "":
		return "", errors.New("empty")
	case strings.HasPrefix(glob, "/"):
		return "", errors.New("must be relative to the run directory")
	case !utf8.ValidString(glob):
		return "", errors.New("not UTF-8")
	}
	var b strings.Builder
	depth := 0 // open braces
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
				if i+1 < len(glob) && glob[i+1] == '/' {
					i++
					b.WriteString(`(?:.*/)?`)
				} else {
					b.WriteString(`.*`)
				}
				continue
			}
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
		case '[':
			n, class, err := globClass(glob[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i += n - 1
		case '{':
			depth++
			b.WriteString(`(?:`)
		case ',':
			if depth == 0 {
				b.WriteString(`,`)
			} else {
				b.WriteString(`|`)
			}
		case '}':
			if depth == 0 {
				return "", errors.New("unmatched }")
			}
			depth--
			b.WriteString(`)`)
		case '\\':
			if i+1 == len(glob) {
				return "", errors.New("trailing backslash")
			}
			i++
			r, size := utf8.DecodeRuneInString(glob[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += size - 1
		default:
			r, size := utf8.DecodeRuneInString(glob[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += size - 1
		}
	}
	if depth > 0 {
		return "", errors.New("unclosed {")
	}
	if _, err := regexp.Compile(b.String()); err != nil {
		return "", errors.New("bad character class")
	}
	return b.String(), nil
}

// globClass translates the class at the start of g and returns its length.
func globClass(g string) (int, string, error) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(g) && (g[i] == '!' || g[i] == '^') {
		b.WriteString("^/")
		i++
	}
	first, afterChar := true, false
	for ; i < len(g); i++ {
		c := g[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			return i + 1, b.String(), nil
		case c == '-' && afterChar && i+1 < len(g) && g[i+1] != ']':
			b.WriteString("-")
			afterChar = false
		default:
			if c == '\\' && i+1 < len(g) {
				i++
			}
			r, size := utf8.DecodeRuneInString(g[i:])
			b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
			i += size - 1
			afterChar = true
		}
		first = false
	}
	return 0, "", errors.New("unclosed [")
}

// CompileGlob compiles a glob of the rules' files syntax ("**/build-log.txt",
// "artifacts/*/gather-extra/**/*.log") into an expression that matches the
// whole of a path relative to a run's directory.
func CompileGlob(glob string) (*regexp.Regexp, error) {
	re, err := globRegexp(glob)
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", glob, err)
	}
	return regexp.Compile(`^(?:` + re + `)$`)
}

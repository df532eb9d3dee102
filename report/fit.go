package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// minCut is the fewest runes a name is shortened to, to fit a width.
const minCut = 12

// fitColumns shortens the cells of columns cut (names: a job, an edge, a
// symptom) in the middle, the widest first, until a table of header and
// body with two spaces between columns fits width; numbers, dates and
// verdicts are never cut. A width of 0 or less leaves the table as it is.
func fitColumns(header []string, body [][]string, width int, cut ...int) {
	if width <= 0 || len(cut) == 0 {
		return
	}
	col := func(i int) int {
		n := utf8.RuneCountInString(header[i])
		for _, c := range body {
			if i < len(c) {
				n = max(n, utf8.RuneCountInString(c[i]))
			}
		}
		return n
	}
	total := 2 * (len(header) - 1)
	for i := range header {
		total += col(i)
	}
	for over := total - width; over > 0; {
		widest := cut[0]
		for _, i := range cut[1:] {
			if col(i) > col(widest) {
				widest = i
			}
		}
		w := col(widest)
		if w <= minCut {
			return
		}
		to := w - min(over, w-minCut)
		for _, c := range body {
			if widest < len(c) {
				c[widest] = middle(c[widest], to)
			}
		}
		over -= w - col(widest)
	}
}

// writeFitted writes header and body as a table aligned by tabwriter,
// each cell one safe line, fitted to width by fitColumns.
func writeFitted(w io.Writer, header []string, body [][]string, width int, cut ...int) error {
	for _, c := range body {
		lineCells(c)
	}
	fitColumns(header, body, width, cut...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, c := range body {
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	return tw.Flush()
}

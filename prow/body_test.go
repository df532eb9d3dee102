package prow

import (
	"errors"
	"testing"
)

func TestCheckBody(t *testing.T) {
	page := "<!DOCTYPE html>\n<html lang=en><head><title>Error 404 (Not Found)</title>"
	tests := []struct {
		kind BodyKind
		body string
		ok   bool
	}{
		{BodyJSON, `{"timestamp":1794308181}`, true},
		{BodyJSON, "\xef\xbb\xbf \n[1]", true},
		{BodyJSON, "", true},
		{BodyJSON, page, false},
		{BodyJSON, "<html><body>Service Unavailable</body></html>", false},
		{BodyJSON, "Not Found", true}, // malformed, the parser says so
		{BodyJSON, "\x00", true},
		{BodyXML, `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="s"/></testsuites>`, true},
		{BodyXML, `<testsuite name="html tests"><testcase name="renders &lt;html&gt;"/></testsuite>`, true},
		{BodyXML, page, false},
		{BodyXML, `<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml">`, false},
		{BodyXML, `{"kind":"error"}`, false},
		{BodyXML, `<testsuite><testcase name="x"><failure><![CDATA[<html><body>502</body></html>]]></failure></testcase></testsuite>`, true},
	}
	for _, tc := range tests {
		err := CheckBody(tc.kind, []byte(tc.body))
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrWrongBody)) {
			t.Errorf("CheckBody(%s, %.30q) = %v, want ok %v", tc.kind, tc.body, err, tc.ok)
		}
	}
}

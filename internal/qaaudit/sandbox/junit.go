package sandbox

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/textfmt"
)

// JUnit is the part of pytest's --junitxml report the verdict needs.
type JUnit struct {
	Tests    int
	Failures int // <failure>: an assertion or exception in the test body
	Errors   int // <error>: collection, setup or teardown failures
	Skipped  int // <skipped>: skips and xfails, which prove nothing
	// Message is the first failure or error message, for the report.
	Message string
	// SkipReason is the reason of the first skipped or xfailed test
	// ("xfail: " before an xfail's reason), so that a run that proves
	// nothing says why.
	SkipReason string
	// Cases is the outcome of every test, in report order, for checks
	// that run several tests in one file and judge each one.
	Cases []TestCase
}

// TestCase is the outcome of one test function of a report.
type TestCase struct {
	Name    string `json:"name"`
	Status  Status `json:"status"` // passed, failed (in the body), error (collection/setup) or skipped
	Message string `json:"message,omitempty"`
}

type junitCase struct {
	Name    string      `xml:"name,attr"`
	Failure []junitItem `xml:"failure"`
	Error   []junitItem `xml:"error"`
	Skipped []junitItem `xml:"skipped"`
}

type junitItem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitSuite struct {
	Cases []junitCase `xml:"testcase"`
}

type junitRoot struct {
	XMLName xml.Name
	Suites  []junitSuite `xml:"testsuite"`
	Cases   []junitCase  `xml:"testcase"`
}

// ParseJUnit reads a pytest JUnit XML report (xunit1 or xunit2, with or
// without the <testsuites> wrapper). It counts the elements of every
// <testcase> rather than trusting the suite's attributes, whose meaning
// changed across pytest versions.
func ParseJUnit(data []byte) (JUnit, error) {
	var root junitRoot
	if err := xml.Unmarshal(data, &root); err != nil {
		return JUnit{}, fmt.Errorf("parse JUnit XML: %w", err)
	}
	var cases []junitCase
	switch root.XMLName.Local {
	case "testsuites":
		for _, s := range root.Suites {
			cases = append(cases, s.Cases...)
		}
	case "testsuite":
		cases = root.Cases
	default:
		return JUnit{}, fmt.Errorf("parse JUnit XML: root element <%s>, expected <testsuites> or <testsuite>", root.XMLName.Local)
	}
	var j JUnit
	for _, c := range cases {
		j.Tests++
		c.Name = decodeTestID(c.Name)
		tc := TestCase{Name: c.Name, Status: StatusPassed}
		switch {
		case len(c.Error) > 0:
			j.Errors++
			j.note(c.Name, c.Error[0])
			tc.Status, tc.Message = StatusError, itemMessage(c.Error[0])
		case len(c.Failure) > 0:
			j.Failures++
			j.note(c.Name, c.Failure[0])
			tc.Status, tc.Message = StatusFailed, itemMessage(c.Failure[0])
		case len(c.Skipped) > 0:
			j.Skipped++
			tc.Status, tc.Message = StatusSkipped, skipMessage(c.Skipped[0])
			if j.SkipReason == "" {
				j.SkipReason = tc.Message
			}
		}
		j.Cases = append(j.Cases, tc)
	}
	return j, nil
}

func (j *JUnit) note(name string, it junitItem) {
	if j.Message != "" {
		return
	}
	j.Message = name + ": " + itemMessage(it)
}

func itemMessage(it junitItem) string {
	msg := it.Message
	if msg == "" {
		msg = it.Text
	}
	return textfmt.Truncate(msg, 500)
}

// skipPattern finds the reason in the text pytest writes for a skip at
// collection time: ('path', 0, "Skipped: reason").
var skipPattern = regexp.MustCompile(`Skipped: (.*?)['"]?\)?\s*$`)

// skipMessage is the reason of a skip or xfail. A skip during collection
// (a module that skips itself, or the missing-package guard) has the
// generic message "collection skipped" and its reason in the text.
func skipMessage(it junitItem) string {
	msg := it.Message
	if msg == "" || msg == "collection skipped" {
		if m := skipPattern.FindStringSubmatch(strings.TrimSpace(it.Text)); m != nil {
			msg = m[1]
		} else if t := strings.TrimSpace(it.Text); t != "" {
			msg = t
		}
	}
	if msg == "" {
		msg = "skipped without a reason"
	}
	if it.Type == "pytest.xfail" && !strings.HasPrefix(msg, "xfail") {
		msg = "xfail: " + msg
	}
	return textfmt.Truncate(msg, 500)
}

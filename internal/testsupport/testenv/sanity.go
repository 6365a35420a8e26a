package testenv

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A rate is a share: no fixture, golden file or rendered page may show
// one above 100%. A drawing of an impossible figure (a 102% success rate)
// would teach readers to distrust every other figure on the page.

// rateWord finds the word "rate" in text ("success rate", "successRate",
// "failure_rate"); a percentage after it on the same line, before the
// next cell, is a rate.
var (
	rateWord = regexp.MustCompile(`(?i)rate`)
	percent  = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s?%`)
)

// RatesAbove100 lists the rates above 100% that text shows, one
// "line N: ..." per line, for Markdown, logs and plain text: a
// percentage after the word "rate" up to the next table cell, sentence
// part (";" or ",") or line end, arrows included ("97.0% → 102.0%"),
// and every percentage of a table row whose first cell names a rate.
func RatesAbove100(text string) []string {
	var bad []string
	for n, line := range strings.Split(text, "\n") {
		// A table row whose first cell names a rate holds rates.
		if cells := strings.Split(strings.TrimSpace(line), "|"); len(cells) > 2 && cells[0] == "" && rateWord.MatchString(cells[1]) {
			for _, m := range percent.FindAllStringSubmatch(strings.Join(cells[2:], "|"), -1) {
				if v, err := strconv.ParseFloat(m[1], 64); err == nil && v > 100 {
					bad = append(bad, fmt.Sprintf("line %d: %s", n+1, strings.TrimSpace(line)))
				}
			}
			continue
		}
		for _, loc := range rateWord.FindAllStringIndex(line, -1) {
			rest := line[loc[1]:]
			if i := strings.IndexAny(rest, "|;,"); i >= 0 {
				rest = rest[:i]
			}
			for _, m := range percent.FindAllStringSubmatch(rest, -1) {
				if v, err := strconv.ParseFloat(m[1], 64); err == nil && v > 100 {
					bad = append(bad, fmt.Sprintf("line %d: %s", n+1, strings.TrimSpace(line)))
				}
			}
		}
	}
	return bad
}

// JSONRatesAbove100 lists the fields of a JSON document (or of each
// line of a JSON Lines file) whose name says rate and percent
// ("successRatePct", "success_rate") and whose value is above 100.
func JSONRatesAbove100(data []byte) []string {
	var docs []any
	var one any
	if err := json.Unmarshal(data, &one); err == nil {
		docs = append(docs, one)
	} else {
		for _, line := range strings.Split(string(data), "\n") {
			var v any
			if json.Unmarshal([]byte(line), &v) == nil {
				docs = append(docs, v)
			}
		}
	}
	var bad []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				p := path + "." + k
				lk := strings.ToLower(k)
				if f, ok := x.(float64); ok && strings.Contains(lk, "rate") && !strings.Contains(lk, "flip") && f > 100 {
					bad = append(bad, fmt.Sprintf("%s = %v", p, f))
				}
				walk(p, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	for i, d := range docs {
		walk(fmt.Sprintf("[%d]", i), d)
	}
	return bad
}

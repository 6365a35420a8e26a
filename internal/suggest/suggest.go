// Package suggest finds the name a person most likely meant when they
// typed one that does not exist: a command (`benchgate repot`), a flag
// (`--gat`), an Action input or one of an input's values. Every place
// that refuses a name asks it, so "did you mean" reads the same
// everywhere.
package suggest

import "strings"

// Closest returns the candidate nearest to word, or "" when none is
// near enough to have been meant: at most two edits (one for words of
// up to four letters), or word is a prefix of exactly one candidate
// ("rep" for "report"). Case is ignored; ties go to the earlier
// candidate.
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if w == "" {
		return ""
	}
	limit := 2
	if len([]rune(w)) <= 4 {
		limit = 1
	}
	best, bestDist := "", limit+1
	var prefixed []string
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == w {
			return c
		}
		if len(w) >= 3 && strings.HasPrefix(lc, w) {
			prefixed = append(prefixed, c)
		}
		if d := Distance(w, lc); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// DidYouMean is "; did you mean X?" for the candidate Closest finds,
// with X as show renders it (a flag's dashes, say), or "" for none.
func DidYouMean(word string, candidates []string, show func(string) string) string {
	c := Closest(word, candidates)
	if c == "" {
		return ""
	}
	if show != nil {
		c = show(c)
	}
	return "; did you mean " + c + "?"
}

// Distance is the Levenshtein distance of a and b, counted in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

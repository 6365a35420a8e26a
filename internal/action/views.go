package action

import (
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/verdict"
)

// shown is a path as a reader of the summary or comment sees it:
// relative to the workspace, or, outside it (a runner's temporary
// folder), its last two elements, so no absolute runner path shows.
func (r *reporter) shown(path string) string {
	rel := r.rel(path)
	if !filepath.IsAbs(rel) {
		return rel
	}
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(rel)), filepath.Base(rel)))
}

// linkArtifacts points each failing scenario whose row is not linked at
// a commit to the artifact that holds its file, and lists the uploaded
// artifacts among the verdict's links.
func linkArtifacts(v *verdict.Verdict, arts []artifact, url func(int64) string, rel func(string) string) {
	for i := range v.Failing {
		s := &v.Failing[i]
		if s.URL != "" || s.Where == "" {
			continue
		}
		for _, a := range arts {
			dir := rel(a.Dir)
			if a.Err != nil || !strings.HasPrefix(s.Where, dir+"/") {
				continue
			}
			s.Where = "artifact " + a.Name + ": " + strings.TrimPrefix(s.Where, dir+"/")
			if url != nil && a.ID != 0 {
				s.URL = url(a.ID)
			}
			break
		}
	}
	for _, a := range arts {
		if a.Err == nil && a.ID != 0 && url != nil {
			v.Links = append(v.Links, verdict.Link{Title: a.Name, URL: url(a.ID)})
		}
	}
}

// leadOf opens the job summary: the verdict's headline, then the table
// of every check.
func leadOf(v *verdict.Verdict) []string {
	lead := []string{v.Headline()}
	blocks := v.Blocks()
	if v.Posted != nil {
		// A pr-comment step has no checks of its own: what it posted
		// follows its first line.
		blocks = append(v.Posted.Blocks(), blocks...)
	}
	if len(v.Checks) > 0 && len(blocks) > 0 {
		lead = append(lead, blocks[0])
		blocks = blocks[1:]
	}
	// The rest of the comment (sets, failing scenarios, next step)
	// follows; the links are the summary's own sections.
	for _, b := range blocks {
		if len(v.Links) > 0 && strings.HasPrefix(b, "[") {
			continue
		}
		lead = append(lead, b)
	}
	return lead
}

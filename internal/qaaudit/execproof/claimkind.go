package execproof

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
)

// The kinds of claim an api_understanding answer makes about the object
// its names resolve to. An attribute claim ("which method of OrderedDict")
// is decided by the class alone, whatever **kwargs its constructor takes;
// a keyword claim ("which parameter of deque") by the signature and what
// **kwargs is forwarded to; a question that says neither (or both) is
// decided when both agree.
const (
	KindAttribute = "attribute"
	KindKeyword   = "keyword"
	KindEither    = "either"
)

var (
	keywordWords     = regexp.MustCompile(`(?i)\b(parameters?|arguments?|args?|keywords?|kwargs?|constructor argument)\b`)
	attributeWords   = regexp.MustCompile(`(?i)\b(methods?|classmethods?|staticmethods?|attributes?|propert(y|ies)|fields?|members?|constants?|functions?|submodules?|enum)\b`)
	keywordParameter = regexp.MustCompile(`(?i)\b(which|what)\s+keyword[- ](parameters?|arguments?)\b`)
	kindWords        = map[string]string{KindAttribute: "an attribute or method", KindKeyword: "a keyword parameter", KindEither: "a member or keyword parameter"}
)

// ClaimKind reads from the question which kind of member the answer
// names.
func ClaimKind(question string) string {
	if keywordParameter.MatchString(question) {
		// "which keyword parameter ... hides a field": the field is
		// what the parameter is about, not what is asked.
		return KindKeyword
	}
	kw, attr := keywordWords.MatchString(question), attributeWords.MatchString(question)
	switch {
	case kw && !attr:
		return KindKeyword
	case attr && !kw:
		return KindAttribute
	}
	return KindEither
}

// typeshedDirs are where Debian's python3-mypy (and a pip-installed mypy)
// keep the typeshed stubs of the standard library.
var typeshedDirs = []string{
	"/usr/lib/python3/dist-packages/mypy/typeshed/stdlib",
	"/usr/local/lib/python3*/dist-packages/mypy/typeshed/stdlib",
	"/usr/local/lib/python3*/site-packages/mypy/typeshed/stdlib",
	"/usr/lib/python3*/site-packages/mypy/typeshed/stdlib",
}

// typeshed is the stub folder the audit reads platform and version guards
// from: Auditor.Typeshed, or the first one found on this machine; "" when
// there is none (a Windows-only name is then decided from the module's own
// source alone).
func (a *Auditor) typeshed() string {
	if a.Typeshed != "" {
		if a.Typeshed == "none" {
			return ""
		}
		return a.Typeshed
	}
	for _, pattern := range typeshedDirs {
		matches, _ := filepath.Glob(pattern)
		for _, m := range matches {
			if st, err := os.Stat(filepath.Join(m, "VERSIONS")); err == nil && st.Mode().IsRegular() {
				return m
			}
		}
	}
	return ""
}

// allNames lists every well-formed fully qualified name of a case.
func allNames(c *questions.Case) []string {
	var out []string
	for _, ans := range c.Answers {
		for _, fqn := range ans.FullyQualifiedClassName {
			out = append(out, strings.TrimSpace(fqn))
		}
	}
	return out
}

// stubFiles copies the stubs of every module prefix of the names
// (os for os.startfile, sys for sys.monitoring) beside the test as
// _stubs/<module path>.pyi, where the generated test reads their
// sys.platform and sys.version_info branches.
func stubFiles(dir string, fqns []string) map[string][]byte {
	if dir == "" {
		return nil
	}
	out := map[string][]byte{}
	for _, fqn := range fqns {
		parts := strings.Split(fqn, ".")
		// A class's members may be defined in any stub of its package
		// (asyncio.Task is in asyncio/tasks.pyi).
		copyPackageStubs(dir, parts[0], out)
		for i := 1; i <= len(parts); i++ {
			rel := strings.Join(parts[:i], "/")
			for _, cand := range []string{rel + ".pyi", rel + "/__init__.pyi"} {
				if _, ok := out["_stubs/"+cand]; ok {
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(cand)))
				if err == nil && len(data) < 4<<20 && path.Clean(cand) == cand {
					out["_stubs/"+cand] = data
				}
			}
		}
	}
	return out
}

// maxPackageStubs bounds the stubs copied for one package.
const maxPackageStubs = 4 << 20

// copyPackageStubs copies every stub of a standard-library package (its
// folder under the typeshed stubs) into out, up to maxPackageStubs bytes.
func copyPackageStubs(dir, top string, out map[string][]byte) {
	root := filepath.Join(dir, top)
	total := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".pyi") || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		key := "_stubs/" + filepath.ToSlash(rel)
		if _, ok := out[key]; ok {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || total+len(data) > maxPackageStubs {
			return filepath.SkipAll
		}
		total += len(data)
		out[key] = data
		return nil
	})
}

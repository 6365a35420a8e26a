package action

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
	"github.com/rhysd/actionlint"
	"gopkg.in/yaml.v3"
)

// actionMetadata is the part of action.yml the cross-check reads.
type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID  string            `yaml:"id"`
			Run string            `yaml:"run"`
			Env map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func loadActionYML(t *testing.T) actionMetadata {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var md actionMetadata
	if err := yaml.Unmarshal(b, &md); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return md
}

// TestActionYMLMatchesAdapter checks both ways that every input and
// output the adapter uses is declared and documented in action.yml, and
// that action.yml declares nothing the adapter ignores.
func TestActionYMLMatchesAdapter(t *testing.T) {
	md := loadActionYML(t)
	// A composite action: the binary is obtained, then `benchgate action`
	// runs on the runner with every input in BENCHGATE_INPUTS, and each
	// output is that step's output of the same name.
	if md.Runs.Using != "composite" || len(md.Runs.Steps) != 2 {
		t.Fatalf("runs = %+v, want a composite action of two steps", md.Runs)
	}
	if obtain := md.Runs.Steps[0]; !strings.Contains(obtain.Run, "scripts/obtain-benchgate.sh") {
		t.Errorf("first step runs %q, want scripts/obtain-benchgate.sh", obtain.Run)
	}
	if run := md.Runs.Steps[1]; run.ID != "run" || !strings.HasSuffix(strings.TrimSpace(run.Run), " action") ||
		run.Env["BENCHGATE_INPUTS"] != "${{ toJSON(inputs) }}" {
		t.Errorf("second step = %+v, want id run, `benchgate action`, BENCHGATE_INPUTS: ${{ toJSON(inputs) }}", run)
	}
	if md.Name == "" || md.Description == "" {
		t.Error("action.yml needs a name and a description")
	}
	known := map[string]Input{}
	for _, in := range Inputs() {
		known[in.Name] = in
		y, ok := md.Inputs[in.Name]
		if !ok {
			t.Errorf("input %q is read by the adapter but missing from action.yml", in.Name)
			continue
		}
		if strings.TrimSpace(y.Description) == "" {
			t.Errorf("input %q has no description", in.Name)
		}
		if y.Required != (in.Required && in.Modes == nil) {
			t.Errorf("input %q: required = %v in action.yml", in.Name, y.Required)
		}
		def := ""
		if y.Default != nil {
			def = *y.Default
		}
		if def != in.Default {
			t.Errorf("input %q: default %q in action.yml, %q in the adapter", in.Name, def, in.Default)
		}
	}
	for name := range md.Inputs {
		if _, ok := known[name]; !ok {
			t.Errorf("action.yml declares input %q that the adapter never reads", name)
		}
	}
	outs := map[string]bool{}
	for _, o := range Outputs() {
		outs[o.Name] = true
		y, ok := md.Outputs[o.Name]
		if !ok || strings.TrimSpace(y.Description) == "" {
			t.Errorf("output %q missing or undocumented in action.yml", o.Name)
		}
		if want := "${{ steps.run.outputs." + o.Name + " }}"; ok && y.Value != want {
			t.Errorf("output %q: value %q, want %q", o.Name, y.Value, want)
		}
	}
	for name := range md.Outputs {
		if !outs[name] {
			t.Errorf("action.yml declares output %q that the adapter never sets", name)
		}
	}
	// Every output name the adapter's code sets must be in the table; the
	// check must find the calls, or it checks nothing.
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	set := 0
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\.output\("([a-z-]+)"`).FindAllStringSubmatch(string(src), -1) {
			set++
			if !outs[m[1]] {
				t.Errorf("%s sets output %q that Outputs() does not list", f, m[1])
			}
		}
	}
	if set < 10 {
		t.Errorf("found %d calls that set an output in the adapter's code; the pattern no longer matches how outputs are set", set)
	}
}

// TestActionMetadataIsGenerated: action.yml's inputs and outputs and the
// two tables of docs/action.md say exactly what Inputs and Outputs
// declare (descriptions, defaults, requirement, order).
func TestActionMetadataIsGenerated(t *testing.T) {
	root := testenv.RepoRoot(t)
	files, err := GeneratedFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what internal/action declares: run go generate ./internal/action (and edit descriptions in Inputs or Outputs, not in %s)\n%s", rel, rel, lineDiff(string(want), string(got)))
		}
	}
}

// TestWorkflowsLint runs actionlint over the project's workflows and the
// examples users copy (which actionlint checks against action.yml when
// they use the local action).
func TestWorkflowsLint(t *testing.T) {
	root := testenv.RepoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	examples, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "examples", "*.yml"))
	files = append(files, examples...)
	if len(files) < 6 {
		t.Fatalf("found %d workflow files, want the CI, release and four examples: %v", len(files), files)
	}
	var out bytes.Buffer
	// Empty Shellcheck/Pyflakes: the external linters are not run.
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The examples use the released action; pointed at this checkout,
		// actionlint also checks their inputs against action.yml.
		local := bytes.ReplaceAll(b, []byte("uses: benchgate/benchgate@v1"), []byte("uses: ./"))
		if bytes.Contains(b, []byte("benchgate/benchgate@")) && bytes.Equal(local, b) {
			t.Errorf("%s uses a benchgate version other than @v1", f)
		}
		errs, err := l.Lint(f, local, proj)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", f, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// TestActionlintCatchesMistakes proves the lint test can fail: a
// workflow passing an input action.yml does not declare is reported.
func TestActionlintCatchesMistakes(t *testing.T) {
	root := testenv.RepoRoot(t)
	bad := []byte("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: ./\n        with:\n          mode: report\n          no-such-input: 1\n")
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Skipf("no project at %s: %v", root, err)
	}
	errs, err := l.Lint(filepath.Join(root, ".github", "workflows", "bad.yml"), bad, proj)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range errs {
		if strings.Contains(e.Message, "no-such-input") {
			found = true
		}
	}
	if !found {
		t.Errorf("actionlint did not report the undeclared input; errors: %v", errs)
	}
}

// TestDocsShowExamples keeps docs/action.md in step with the example
// workflows: each one is shown there verbatim.
func TestDocsShowExamples(t *testing.T) {
	root := testenv.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "examples", "*.yml"))
	for _, f := range examples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(doc, b) {
			t.Errorf("docs/action.md does not show %s verbatim", filepath.Base(f))
		}
	}
	// The SWE-bench page shows its sharded job as users copy it.
	sw, err := os.ReadFile(filepath.Join(root, "docs", "swebench.md"))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "examples", "swebench-shards.yml")); err != nil || !bytes.Contains(sw, b) {
		t.Errorf("docs/swebench.md does not show swebench-shards.yml verbatim (%v)", err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := false
	for _, f := range examples {
		b, _ := os.ReadFile(f)
		shown = shown || bytes.Contains(readme, b)
	}
	if !shown {
		t.Error("README.md shows none of the example workflows verbatim")
	}
	for _, in := range Inputs() {
		if !bytes.Contains(doc, []byte("`"+in.Name+"`")) {
			t.Errorf("docs/action.md does not mention input `%s`", in.Name)
		}
	}
}

// dockerBuild is what the Dockerfile's build stage does, read from it.
type dockerBuild struct {
	env     []string // KEY=VALUE before "go build"
	args    []string // go build arguments
	final   string   // FROM of the last stage
	entry   string
	hasUser bool
}

func parseDockerfile(t *testing.T, path string) dockerBuild {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var logical []string
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		if strings.HasSuffix(l, `\`) {
			cur.WriteString(strings.TrimSuffix(l, `\`) + " ")
			continue
		}
		cur.WriteString(l)
		logical = append(logical, cur.String())
		cur.Reset()
	}
	var d dockerBuild
	for _, l := range logical {
		instr, rest, _ := strings.Cut(l, " ")
		switch strings.ToUpper(instr) {
		case "FROM":
			d.final = rest
		case "USER":
			d.hasUser = true
		case "ENTRYPOINT":
			d.entry = rest
		case "RUN":
			if !strings.Contains(rest, "go build") {
				continue
			}
			words := shellWords(rest)
			i := 0
			for ; i < len(words) && strings.Contains(words[i], "="); i++ {
				d.env = append(d.env, words[i])
			}
			if i+1 >= len(words) || words[i] != "go" || words[i+1] != "build" {
				t.Fatalf("Dockerfile: cannot read the go build line %q", rest)
			}
			d.args = words[i+2:]
		}
	}
	return d
}

// shellWords splits the simple shell the Dockerfile uses: words, double
// quotes, $VAR kept as text.
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	inQ, any := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQ, any = !inQ, true
		case (r == ' ' || r == '\t') && !inQ:
			if any {
				out = append(out, w.String())
				w.Reset()
				any = false
			}
		default:
			w.WriteRune(r)
			any = true
		}
	}
	if any {
		out = append(out, w.String())
	}
	return out
}

// TestDockerfileBuildsStaticBinaries builds the binary exactly as the
// Dockerfile's build stage does (same environment, same flags), for both
// image architectures, and checks it is a static executable.
func TestDockerfileBuildsStaticBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice")
	}
	root := testenv.RepoRoot(t)
	d := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	if !strings.Contains(d.final, "distroless/static") || strings.Contains(d.final, "nonroot") {
		t.Errorf("final stage FROM %q: want distroless static running as root", d.final)
	}
	if d.hasUser {
		t.Error("Dockerfile has a USER line: Docker actions must run as root")
	}
	if d.entry != `["/benchgate", "action"]` {
		t.Errorf("ENTRYPOINT %s", d.entry)
	}
	wantEnv := map[string]bool{"CGO_ENABLED=0": false, "GOOS=${TARGETOS:-linux}": false, "GOARCH=${TARGETARCH:-amd64}": false}
	for _, e := range d.env {
		if _, ok := wantEnv[e]; ok {
			wantEnv[e] = true
		}
	}
	for e, seen := range wantEnv {
		if !seen {
			t.Errorf("go build in the Dockerfile lacks %s (env %q)", e, d.env)
		}
	}
	joined := strings.Join(d.args, " ")
	for _, want := range []string{"-trimpath", "-s -w", "./cmd/benchgate"} {
		if !strings.Contains(joined, want) {
			t.Errorf("go build args %q lack %q", joined, want)
		}
	}
	sizes := map[string]int64{}
	for _, arch := range []string{"amd64", "arm64"} {
		out := filepath.Join(t.TempDir(), "benchgate")
		args := []string{"build"}
		for _, a := range d.args {
			a = strings.ReplaceAll(a, "$VERSION", "test")
			if a == "/out/benchgate" {
				a = out
			}
			args = append(args, a)
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOARCH=%s go %s: %v\n%s", arch, strings.Join(args, " "), err, b)
		}
		ef, err := elf.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		wantMachine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
		if ef.Machine != wantMachine {
			t.Errorf("%s: machine %v", arch, ef.Machine)
		}
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: binary has an ELF interpreter: not static", arch)
			}
		}
		if libs, _ := ef.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("%s: binary links %v", arch, libs)
		}
		if s := ef.Section(".symtab"); s != nil {
			t.Errorf("%s: symbol table present: -s was not applied", arch)
		}
		ef.Close()
		info, _ := os.Stat(out)
		sizes[arch] = info.Size()
	}
	var keys []string
	for k := range sizes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("linux/%s binary: %d bytes (%.1f MiB)", k, sizes[k], float64(sizes[k])/(1<<20))
	}
}

// TestDockerignoreKeepsBuildInputs checks that no .dockerignore pattern
// drops a file "go build ./cmd/benchgate" reads: Go sources, embedded
// files, go.mod and go.sum.
func TestDockerignoreKeepsBuildInputs(t *testing.T) {
	root := testenv.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}`, "./cmd/benchgate")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files := []string{"go.mod", "go.sum"}
	for _, f := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(rel, "..") {
			files = append(files, filepath.ToSlash(rel))
		}
	}
	if len(files) < 10 {
		t.Fatalf("only %d build inputs found", len(files))
	}
	for _, f := range files {
		for _, p := range patterns {
			if dockerignored(p, f) {
				t.Errorf(".dockerignore pattern %q drops build input %s", p, f)
			}
		}
	}
	if !dockerignored("**/*_test.go", "internal/action/action_test.go") || !dockerignored(".git", ".git/HEAD") {
		t.Error("dockerignored does not match as Docker does")
	}
}

// dockerignored reports whether pattern excludes path: the pattern
// matches the path or one of its parent folders; "**/" matches any depth.
func dockerignored(pattern, path string) bool {
	parts := strings.Split(path, "/")
	for i := 1; i <= len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if ok, _ := filepath.Match(pattern, prefix); ok {
			return true
		}
		if rest, found := strings.CutPrefix(pattern, "**/"); found {
			for j := 0; j < i; j++ {
				if ok, _ := filepath.Match(rest, strings.Join(parts[j:i], "/")); ok {
					return true
				}
			}
		}
	}
	return false
}

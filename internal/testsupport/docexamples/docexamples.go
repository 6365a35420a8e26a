// Package docexamples finds the command examples of benchgate's Markdown
// docs (README.md and docs/*.md) so that a test can run every one of
// them as written. A fenced block that shows commands must be preceded
// by a marker comment saying how it runs, or why it is not run:
//
//	<!-- example: dir=repo exit=1 -->
//	<!-- example: not run: needs a Docker engine with the instance image and a model endpoint -->
//
// The marker's keys:
//
//   - dir: what the folder it runs in holds: repo (a copy of the
//     repository with bin/ built, the default), benchmark-package (a
//     benchmark package with the default contract's pnpm scripts, which
//     call the simulator) or empty.
//   - exit: the exit code the block ends with (default 0).
//   - needs: a component the block needs beyond the built binaries
//     (pnpm, python): without it the test is skipped, as other tests are.
//   - continues: the block runs in the folder and working directory the
//     previous runnable block of the same file left.
//
// A block is a transcript when its lines start with "$ ": each command
// is run, and the lines shown after it must appear, in that order, in
// what the commands printed ("..." stands for lines left out). Any other
// command block is a script run with "set -e".
package docexamples

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Example is one fenced block of commands in a Markdown file.
type Example struct {
	File string
	// Line is the line of the opening fence.
	Line int
	// Lang is the fence's info string ("bash", "" ...).
	Lang string
	Text string
	// Marked is false when no marker comment precedes the block.
	Marked bool
	// NotRun is the reason given for not running it; "" when it runs.
	NotRun    string
	Dir       string
	Exit      int
	Needs     []string
	Continues bool
}

// Step is one command of a transcript with the lines shown after it.
type Step struct {
	Command string
	Output  []string
}

var (
	markerRE = regexp.MustCompile(`^<!--\s*example:\s*(.*?)\s*-->\s*$`)
	// A fenced block without a shell info string still shows commands
	// when its first line starts like one.
	commandStart = regexp.MustCompile(`^(\$ |(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\./|bin/|benchgate\b|benchsim\b|go\s|cd\s|export\s|mkdir\s|docker\s|scripts/|for\s))`)
	printedLine  = regexp.MustCompile(`^[a-z][\w-]*( [\w-]+)?: `)
	placeholder  = regexp.MustCompile(`<[a-z][\w -]*>`)
	shellLangs   = map[string]bool{"bash": true, "sh": true, "shell": true, "console": true}
	knownDirs    = map[string]bool{"repo": true, "benchmark-package": true, "empty": true}
	knownNeeds   = map[string]bool{"pnpm": true, "python": true}
)

// Parse returns the command blocks of a Markdown file's text. A marker
// that does not parse is an error naming the file and line.
func Parse(file, text string) ([]Example, error) {
	lines := strings.Split(text, "\n")
	var out []Example
	for i := 0; i < len(lines); i++ {
		fence, lang, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines); i++ {
			if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[i]), string(fence[0]))) == "" {
				break
			}
			body = append(body, lines[i])
		}
		ex := Example{File: file, Line: start + 1, Lang: lang, Text: strings.Join(body, "\n"), Dir: "repo"}
		if !isCommands(ex) {
			continue
		}
		// The marker is the nearest non-blank line above the fence.
		j := start - 1
		for j >= 0 && strings.TrimSpace(lines[j]) == "" {
			j--
		}
		if j >= 0 {
			if m := markerRE.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil {
				if err := ex.applyMarker(m[1]); err != nil {
					return nil, fmt.Errorf("%s:%d: example marker: %w", file, j+1, err)
				}
			}
		}
		out = append(out, ex)
	}
	return out, nil
}

func openingFence(line string) (fence, lang string, ok bool) {
	t := strings.TrimSpace(line)
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := len(t) - len(strings.TrimLeft(t, c[:1]))
			return t[:n], strings.TrimSpace(t[n:]), true
		}
	}
	return "", "", false
}

// isCommands says whether a block shows commands to run (rather than a
// file, output or a format).
func isCommands(ex Example) bool {
	if shellLangs[ex.Lang] {
		return true
	}
	if ex.Lang != "" && ex.Lang != "text" {
		return false
	}
	for _, l := range strings.Split(ex.Text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		// A line a command printed ("benchgate set: ...") and a synopsis
		// with placeholders ("benchsim confirm <name>") are not commands.
		return commandStart.MatchString(l) && !printedLine.MatchString(l) && !placeholder.MatchString(l)
	}
	return false
}

func (ex *Example) applyMarker(m string) error {
	ex.Marked = true
	if rest, ok := strings.CutPrefix(m, "not run:"); ok {
		ex.NotRun = strings.TrimSpace(rest)
		if ex.NotRun == "" {
			return fmt.Errorf("not run: expected a reason after it")
		}
		return nil
	}
	for _, field := range strings.Fields(m) {
		key, value, _ := strings.Cut(field, "=")
		switch key {
		case "dir":
			if !knownDirs[value] {
				return fmt.Errorf("dir=%s: expected repo, benchmark-package or empty", value)
			}
			ex.Dir = value
		case "exit":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n > 255 {
				return fmt.Errorf("exit=%s: expected an exit code from 0 to 255", value)
			}
			ex.Exit = n
		case "needs":
			for _, n := range strings.Split(value, ",") {
				if !knownNeeds[n] {
					return fmt.Errorf("needs=%s: expected pnpm or python", n)
				}
				ex.Needs = append(ex.Needs, n)
			}
		case "continues":
			ex.Continues = true
		default:
			return fmt.Errorf("%q: expected dir=, exit=, needs=, continues or \"not run: <reason>\"", field)
		}
	}
	return nil
}

// Transcript reports whether the block shows commands with "$ " and
// their output.
func (ex Example) Transcript() bool {
	for _, l := range strings.Split(ex.Text, "\n") {
		if strings.HasPrefix(l, "$ ") {
			return true
		}
	}
	return false
}

// Steps splits a transcript into its commands (a line ending in a
// backslash continues on the next) and the output shown after each.
func (ex Example) Steps() []Step {
	var steps []Step
	cont := false
	for _, l := range strings.Split(ex.Text, "\n") {
		switch {
		case cont:
			steps[len(steps)-1].Command += "\n" + l
		case strings.HasPrefix(l, "$ "):
			steps = append(steps, Step{Command: strings.TrimPrefix(l, "$ ")})
		case len(steps) > 0:
			steps[len(steps)-1].Output = append(steps[len(steps)-1].Output, l)
		default:
			continue
		}
		cont = strings.HasSuffix(l, `\`) && (cont || strings.HasPrefix(l, "$ "))
	}
	for i := range steps {
		out := steps[i].Output
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		steps[i].Output = out
	}
	return steps
}

// Script is the block as bash runs it: a script under "set -e", or the
// commands of a transcript one after another.
func (ex Example) Script() string {
	if !ex.Transcript() {
		return "set -e\n" + ex.Text + "\n"
	}
	var b strings.Builder
	for _, s := range ex.Steps() {
		b.WriteString(s.Command)
		b.WriteString("\n")
	}
	return b.String()
}

// Missing returns the first shown output line that the actual output
// does not hold in order, with its index in shown; ok when all are there.
// Lines are compared without trailing spaces; "..." lines are skipped.
func Missing(shown []string, actual string) (line string, ok bool) {
	got := strings.Split(actual, "\n")
	k := 0
	for _, want := range shown {
		want = strings.TrimRight(want, " \t")
		if strings.TrimSpace(want) == "..." || want == "" {
			continue
		}
		for k < len(got) && strings.TrimRight(got[k], " \t") != want {
			k++
		}
		if k == len(got) {
			return want, false
		}
		k++
	}
	return "", true
}

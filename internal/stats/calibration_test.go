package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// suiteDesign is one kind of suite the calibration simulates: scenarios ×
// repetitions per arm, the true reduction of each metric, the noise.
type suiteDesign struct {
	name               string
	scenarios          int
	baseReps, tgtReps  int
	tokens, lat, tools float64 // true reductions in percent
	lambda             float64 // agent_direct's mean tool calls per run
	heavy              bool    // t(3) repetition noise instead of normal
	scope              string  // "" is the suite scope
	// gateMin/gateMax bound the share of runs whose gate passes.
	gateMin, gateMax float64
}

// calibrationDesigns are the designs of docs/statistics.md's calibration
// tables; thresholds are verify_pr's (15, 15, 20).
var calibrationDesigns = []suiteDesign{
	{"clear win 50%, 2 × 4", 2, 4, 4, 50, 50, 50, 20, false, "", 0.8, 1},
	{"clear win 40%, 4 × 5", 4, 5, 5, 40, 40, 40, 20, false, "", 0.8, 1},
	{"clear win 50%, 15 × 5", 15, 5, 5, 50, 50, 50, 20, false, "", 0.8, 1},
	{"clear win 40%, 4 × 5, heavy tails", 4, 5, 5, 40, 40, 40, 20, true, "", 0, 1},
	{"clear win 40%, 4 scenarios, 5 vs 2 repetitions", 4, 5, 2, 40, 40, 40, 20, false, "", 0, 1},
	{"moderate 30%, 30 × 4", 30, 4, 4, 30, 30, 30, 20, false, "", 0, 1},
	{"moderate 25%, 60 × 4", 60, 4, 4, 25, 25, 30, 20, false, "", 0, 1},
	{"on the thresholds, 2 × 4", 2, 4, 4, 15, 15, 20, 20, false, "", 0, 0.05},
	{"on the thresholds, 4 × 5", 4, 5, 5, 15, 15, 20, 20, false, "", 0, 0.05},
	{"on the thresholds, 15 × 5", 15, 5, 5, 15, 15, 20, 20, false, "", 0, 0.05},
	{"on the thresholds, 4 × 5, low counts (3 tool calls)", 4, 5, 5, 15, 15, 20, 3, false, "", 0, 0.05},
	{"on the thresholds, 15 × 5, heavy tails, low counts", 15, 5, 5, 15, 15, 20, 3, true, "", 0, 0.05},
	{"no effect, 2 × 4", 2, 4, 4, 0, 0, 0, 20, false, "", 0, 0},
	{"no effect, 4 × 5", 4, 5, 5, 0, 0, 0, 20, false, "", 0, 0},
	{"no effect, 15 × 5, low counts", 15, 5, 5, 0, 0, 0, 3, false, "", 0, 0},
	{"scenario scope: 40% at 12 × 3", 12, 3, 3, 40, 40, 40, 20, false, ScopeScenarios, 0, 1},
	{"scenario scope: 35% at 20 × 3", 20, 3, 3, 35, 35, 35, 20, false, ScopeScenarios, 0, 1},
	{"scenario scope: 30% at 40 × 3, heavy tails", 40, 3, 3, 30, 30, 30, 20, true, ScopeScenarios, 0, 1},
	{"scenario scope: 28% at 60 × 3, low counts", 60, 3, 3, 28, 28, 28, 3, false, ScopeScenarios, 0, 1},
	{"scenario scope: on the thresholds, 20 × 3", 20, 3, 3, 15, 15, 20, 20, false, ScopeScenarios, 0, 0.05},
}

// simulate draws one suite of the suiteDesign: per scenario a level of each
// metric, agent_direct's repetitions around it and ghx's around the
// level reduced by the true reduction; tokens and latency with
// log-normal noise of sd 0.25 (or t(3) scaled to 0.25), tool calls
// Poisson.
func (d suiteDesign) simulate(rng *rand.Rand) [3][]Scenario {
	var out [3][]Scenario
	noise := func() float64 {
		if d.heavy {
			z := rng.NormFloat64()
			c := 0.0
			for i := 0; i < 3; i++ {
				g := rng.NormFloat64()
				c += g * g
			}
			return 0.25 * z / math.Sqrt(c/3) / math.Sqrt(3)
		}
		return 0.25 * rng.NormFloat64()
	}
	for s := 0; s < d.scenarios; s++ {
		id := fmt.Sprintf("s%02d", s)
		tok, lat, lam := 3000*math.Exp(0.5*rng.NormFloat64()), 40000*math.Exp(0.4*rng.NormFloat64()), d.lambda*math.Exp(0.2*rng.NormFloat64())
		var sc [3]Scenario
		for i := range sc {
			sc[i].ID = id
		}
		for r := 0; r < d.baseReps; r++ {
			sc[0].Base = append(sc[0].Base, math.Round(tok*math.Exp(noise())))
			sc[1].Base = append(sc[1].Base, math.Round(lat*math.Exp(noise())))
			sc[2].Base = append(sc[2].Base, poisson(rng, lam))
		}
		for r := 0; r < d.tgtReps; r++ {
			sc[0].Target = append(sc[0].Target, math.Round(tok*(1-d.tokens/100)*math.Exp(noise())))
			sc[1].Target = append(sc[1].Target, math.Round(lat*(1-d.lat/100)*math.Exp(noise())))
			sc[2].Target = append(sc[2].Target, poisson(rng, lam*(1-d.tools/100)))
		}
		for i := range sc {
			out[i] = append(out[i], sc[i])
		}
	}
	return out
}

// calibration is what runs of one suiteDesign measured.
type calibration struct {
	gatePass, gateFail int
	checkPass          [3]int
	checkFail          [3]int
	predicted          [3]float64 // mean predicted power at the true reduction
	runs               int
}

var verifyPR = [3]float64{15, 15, 20}

func (d suiteDesign) run(runs int, seed uint64) (calibration, error) {
	var c calibration
	c.runs = runs
	rng := rand.New(rand.NewPCG(seed, 0x63616c6962))
	truth := [3]float64{d.tokens, d.lat, d.tools}
	var sdSum [3]float64
	var sdN [3]int
	for i := 0; i < runs; i++ {
		scs := d.simulate(rng)
		res, err := Judge([]Metric{
			{Name: "tokens_active", Scenarios: scs[0], MinReductionPct: 15},
			{Name: "latency", Scenarios: scs[1], MinReductionPct: 15},
			{Name: "tool_calls", Scenarios: scs[2], MinReductionPct: 20},
		}, Options{Scope: d.scope, Replicates: 100})
		if err != nil {
			return c, err
		}
		pass, failed := true, false
		for k, r := range res {
			switch r.Verdict {
			case Pass:
				c.checkPass[k]++
			case Fail:
				c.checkFail[k]++
				pass, failed = false, true
			default:
				pass = false
			}
			if p := r.SuitePlan; p != nil && p.WithinKnown {
				sdSum[k] += p.WithinSD
				sdN[k]++
			}
			if p := r.Plan; p != nil {
				// The scenario scope's planner, at the true reduction
				// with the noise this run shows, at the strictest Holm
				// level it plans at.
				c.predicted[k] += Power(p.Noise, d.scenarios, d.baseReps, Excess(100, 100-truth[k], verifyPR[k]), p.Confidence) / float64(runs)
			}
		}
		if pass {
			c.gatePass++
		}
		if failed {
			c.gateFail++
		}
	}
	for k := range c.predicted {
		if sdN[k] == 0 || d.scope == ScopeScenarios {
			continue
		}
		sizes := make([][2]int, d.scenarios)
		for i := range sizes {
			sizes[i] = [2]int{d.baseReps, d.tgtReps}
		}
		effect := Excess(100, 100-truth[k], verifyPR[k])
		c.predicted[k] = SuitePower(sdSum[k]/float64(sdN[k]), effect, sizes, planLevel(effect, 0.95, 3))
	}
	return c, nil
}

// TestCalibration runs the designs of calibrationDesigns with seeded
// simulations and checks the gate's pass rate against each suiteDesign's
// bounds. By default it runs 40 suites of the first suiteDesign of each kind
// (a quick check); with BENCHGATE_CALIBRATE=200 it runs every suiteDesign 200
// times and prints the Markdown rows of docs/statistics.md's tables:
//
//	BENCHGATE_CALIBRATE=200 go test ./internal/stats -run TestCalibration -v
func TestCalibration(t *testing.T) {
	runs, full := 40, false
	if v := os.Getenv("BENCHGATE_CALIBRATE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("BENCHGATE_CALIBRATE: expected a number of runs, got %q", v)
		}
		runs, full = n, true
	}
	var rows []string
	for i, d := range calibrationDesigns {
		if !full && !strings.Contains("clear win 50%, 2 × 4|on the thresholds, 4 × 5|no effect, 2 × 4|on the thresholds, 4 × 5, low counts (3 tool calls)|scenario scope: 40% at 12 × 3", d.name) {
			continue
		}
		c, err := d.run(runs, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		share := float64(c.gatePass) / float64(runs)
		truth := [3]float64{d.tokens, d.lat, d.tools}
		joint := "–"
		if truth[0] > 15 && truth[1] > 15 && truth[2] > 20 {
			joint = fmt.Sprintf("%.0f%%", c.predicted[0]*c.predicted[1]*c.predicted[2]*100)
		}
		// Per check: the share decided the right way (pass above the
		// threshold, fail below) against the prediction; on the
		// threshold, the share of false passes.
		var cells [3]string
		for k := range cells {
			switch {
			case truth[k] > verifyPR[k]:
				cells[k] = fmt.Sprintf("pass %.0f%% / %.0f%%", pct(c.checkPass[k], runs), c.predicted[k]*100)
			case truth[k] < verifyPR[k]:
				cells[k] = fmt.Sprintf("fail %.0f%% / %.0f%%, pass %.0f%%", pct(c.checkFail[k], runs), c.predicted[k]*100, pct(c.checkPass[k], runs))
			default:
				cells[k] = fmt.Sprintf("false pass %.1f%%", pct(c.checkPass[k], runs))
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %.1f%% | %s | %s | %s | %s |", d.name, share*100, joint, cells[0], cells[1], cells[2]))
		// With 40 runs the bounds get a binomial margin.
		margin := 0.0
		if !full {
			margin = 0.1
		}
		if share < d.gateMin-margin || share > d.gateMax+margin {
			t.Errorf("%s: the gate passed %d of %d runs, expected a share in [%.2f, %.2f]", d.name, c.gatePass, runs, d.gateMin, d.gateMax)
		}
	}
	t.Logf("%d runs per design\n| design | gate passes | predicted | tokens_active: measured / predicted | latency | tool_calls |\n|---|---:|---:|---|---|---|\n%s", runs, strings.Join(rows, "\n"))
}

func pct(k, n int) float64 { return float64(k) / float64(n) * 100 }

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
// repetitions per arm, the true value of each check's estimand (the
// reduction 1 − exp(mean over scenarios of the log ratio of the arms'
// means)), and the noise.
type suiteDesign struct {
	name              string
	scenarios         int
	baseReps, tgtReps int
	// truth holds the true reductions of tokens, latency and tool calls
	// in percent; onThr puts all three exactly on verify_pr's
	// thresholds, noEffect at 0.
	truth [3]float64
	// lambda is agent_direct's mean tool calls per run; zeroInflated
	// makes 40% of runs call no tool at all (the mean kept at lambda).
	lambda       float64
	zeroInflated bool
	heavy        bool    // t(3) repetition noise on the log scale
	spread       float64 // sd of the scenarios' own log ratios around the mean (heterogeneous effects)
	big          bool    // scenario 0 at 10× the others' scale
	missing      float64 // chance that a repetition is lost (each arm keeps one)
	// ratios, when set, are the scenarios' own true ratios (cycled),
	// the same for every metric; truth is then their estimand.
	ratios []float64
	// gateMin/gateMax bound the share of runs whose gate passes;
	// passMax bounds every check's pass share (the false pass).
	gateMin, gateMax float64
}

var verifyPR = [3]float64{15, 15, 20}

// win, thr and none are the truths of a clear win at r%, the thresholds
// themselves, and no effect.
func win(r float64) [3]float64 { return [3]float64{r, r, r} }

var (
	thr  = verifyPR
	none = [3]float64{}
)

// calibrationDesigns are the designs of docs/statistics.md's calibration
// table. Tool calls are about 4 per run in agent_direct, as in the real
// suites, unless a design says otherwise.
var calibrationDesigns = []suiteDesign{
	{name: "clear win 50%, 2 × 4", scenarios: 2, baseReps: 4, tgtReps: 4, truth: win(50), lambda: 4, gateMin: 0.2, gateMax: 1},
	{name: "clear win 40%, 4 × 5", scenarios: 4, baseReps: 5, tgtReps: 5, truth: win(40), lambda: 4, gateMin: 0.3, gateMax: 1},
	{name: "clear win 40%, 2 × 4", scenarios: 2, baseReps: 4, tgtReps: 4, truth: win(40), lambda: 4, gateMax: 1},
	{name: "clear win 40%, 3 × 3", scenarios: 3, baseReps: 3, tgtReps: 3, truth: win(40), lambda: 4, gateMax: 1},
	{name: "clear win 50%, 15 × 5", scenarios: 15, baseReps: 5, tgtReps: 5, truth: win(50), lambda: 4, gateMin: 0.95, gateMax: 1},
	{name: "moderate 25%, 15 × 4", scenarios: 15, baseReps: 4, tgtReps: 4, truth: [3]float64{25, 25, 35}, lambda: 4, gateMax: 1},
	{name: "clear win 40%, 4 × 5, heavy tails", scenarios: 4, baseReps: 5, tgtReps: 5, truth: win(40), lambda: 4, heavy: true, gateMax: 1},
	{name: "clear win 40%, 4 scenarios, 5 vs 2 repetitions", scenarios: 4, baseReps: 5, tgtReps: 2, truth: win(40), lambda: 4, gateMax: 1},
	{name: "50% cut at 1.5 tool calls, 15 × 4", scenarios: 15, baseReps: 4, tgtReps: 4, truth: [3]float64{50, 50, 50}, lambda: 1.5, gateMin: 0.6, gateMax: 1},
	{name: "on the thresholds, 2 × 4", scenarios: 2, baseReps: 4, tgtReps: 4, truth: thr, lambda: 4, gateMax: 0.05},
	{name: "on the thresholds, 4 × 5", scenarios: 4, baseReps: 5, tgtReps: 5, truth: thr, lambda: 4, gateMax: 0.05},
	{name: "on the thresholds, 15 × 5", scenarios: 15, baseReps: 5, tgtReps: 5, truth: thr, lambda: 4, gateMax: 0.05},
	{name: "on the thresholds, 16 × 4, heterogeneous (sd 0.3)", scenarios: 16, baseReps: 4, tgtReps: 4, truth: thr, lambda: 4, spread: 0.3, gateMax: 0.05},
	{name: "on the thresholds, 16 × 4, 9 scenarios 20% worse, 7 much better", scenarios: 16, baseReps: 4, tgtReps: 4, truth: win(15), lambda: 4, ratios: nineWorse(), gateMax: 0.05},
	{name: "3 × 10, reductions 90%, 10%, 10% (estimand 56.7%)", scenarios: 3, baseReps: 10, tgtReps: 10, truth: win(100 * (1 - math.Cbrt(0.1*0.9*0.9))), lambda: 4, ratios: []float64{0.1, 0.9, 0.9}, gateMax: 1},
	{name: "on the thresholds, 4 × 5, heavy tails", scenarios: 4, baseReps: 5, tgtReps: 5, truth: thr, lambda: 4, heavy: true, gateMax: 0.05},
	{name: "on the thresholds, 8 × 5, one scenario at 10×, heterogeneous", scenarios: 8, baseReps: 5, tgtReps: 5, truth: thr, lambda: 4, big: true, spread: 0.3, gateMax: 0.05},
	{name: "on the thresholds, 4 × 5 vs 2", scenarios: 4, baseReps: 5, tgtReps: 2, truth: thr, lambda: 4, gateMax: 0.05},
	{name: "on the thresholds, 10 × 4, 25% of repetitions lost", scenarios: 10, baseReps: 4, tgtReps: 4, truth: thr, lambda: 4, missing: 0.25, gateMax: 0.05},
	{name: "on the thresholds, 15 × 4, 1.5 tool calls (Poisson)", scenarios: 15, baseReps: 4, tgtReps: 4, truth: thr, lambda: 1.5, gateMax: 0.05},
	{name: "on the thresholds, 15 × 4, 1.5 tool calls, zero-inflated", scenarios: 15, baseReps: 4, tgtReps: 4, truth: thr, lambda: 1.5, zeroInflated: true, gateMax: 0.05},
	{name: "no effect, 2 × 4", scenarios: 2, baseReps: 4, tgtReps: 4, truth: none, lambda: 4, gateMax: 0},
	{name: "no effect, 4 × 5", scenarios: 4, baseReps: 5, tgtReps: 5, truth: none, lambda: 4, gateMax: 0},
	{name: "no effect, 15 × 4, 1.5 tool calls", scenarios: 15, baseReps: 4, tgtReps: 4, truth: none, lambda: 1.5, gateMax: 0},
}

// nineWorse are 16 scenarios' ratios: 9 use 20% more, 7 so much less
// that the mean log ratio is exactly log 0.85, the 15% threshold of
// tokens and latency (tool calls, against 20%, then sit 5 points below
// theirs).
func nineWorse() []float64 {
	x := math.Exp((16*math.Log(0.85) - 9*math.Log(1.2)) / 7)
	out := make([]float64, 16)
	for i := range out {
		out[i] = x
		if i < 9 {
			out[i] = 1.2
		}
	}
	return out
}

// quickDesigns run by default (without BENCHGATE_CALIBRATE).
var quickDesigns = map[string]bool{
	"clear win 40%, 4 × 5":                                         true,
	"50% cut at 1.5 tool calls, 15 × 4":                            true,
	"on the thresholds, 16 × 4, heterogeneous (sd 0.3)":            true,
	"on the thresholds, 8 × 5, one scenario at 10×, heterogeneous": true,
	"on the thresholds, 15 × 4, 1.5 tool calls, zero-inflated":     true,
	"no effect, 4 × 5":                                             true,
}

// simulate draws one suite: per scenario a level of each metric (tokens
// 3000·e^{0.5z}, latency 40 s·e^{0.4z}, tool calls λ·e^{0.2z}; scenario
// 0 ten times larger when big), the scenario's own log ratio (the mean's
// log ratio plus spread·c, the c centred so the mean is exact), and the
// repetitions: tokens and latency with log-normal noise of sd 0.25 (or
// t(3) scaled to it), tool calls Poisson (or zero-inflated Poisson) with
// the same mean ratio.
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
	count := func(mean float64) float64 {
		if d.zeroInflated {
			if rng.Float64() < 0.4 {
				return 0
			}
			return poisson(rng, mean/0.6)
		}
		return poisson(rng, mean)
	}
	var offsets [3][]float64
	for k := range offsets {
		offsets[k] = make([]float64, d.scenarios)
		if d.spread == 0 {
			continue
		}
		m := 0.0
		for s := range offsets[k] {
			offsets[k][s] = d.spread * rng.NormFloat64()
			m += offsets[k][s]
		}
		for s := range offsets[k] {
			offsets[k][s] -= m / float64(d.scenarios)
		}
	}
	keep := func(reps int) int {
		n := 0
		for r := 0; r < reps; r++ {
			if rng.Float64() >= d.missing {
				n++
			}
		}
		return max(n, 1)
	}
	for s := 0; s < d.scenarios; s++ {
		id := fmt.Sprintf("s%02d", s)
		scale := 1.0
		if d.big && s == 0 {
			scale = 10
		}
		level := [3]float64{3000 * math.Exp(0.5*rng.NormFloat64()) * scale, 40000 * math.Exp(0.4*rng.NormFloat64()) * scale, d.lambda * math.Exp(0.2*rng.NormFloat64()) * scale}
		var ratio [3]float64
		for k := range ratio {
			ratio[k] = math.Exp(LogRatioOf(d.truth[k]) + offsets[k][s])
			if d.ratios != nil {
				ratio[k] = d.ratios[s%len(d.ratios)]
			}
		}
		var sc [3]Scenario
		for i := range sc {
			sc[i].ID = id
		}
		nb, nt := keep(d.baseReps), keep(d.tgtReps)
		for r := 0; r < nb; r++ {
			sc[0].Base = append(sc[0].Base, math.Round(level[0]*math.Exp(noise())))
			sc[1].Base = append(sc[1].Base, math.Round(level[1]*math.Exp(noise())))
			sc[2].Base = append(sc[2].Base, count(level[2]))
		}
		for r := 0; r < nt; r++ {
			sc[0].Target = append(sc[0].Target, math.Round(level[0]*ratio[0]*math.Exp(noise())))
			sc[1].Target = append(sc[1].Target, math.Round(level[1]*ratio[1]*math.Exp(noise())))
			sc[2].Target = append(sc[2].Target, count(level[2]*ratio[2]))
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
	// refPass counts, per check, the passes of the two simple reference
	// tests on the same data: the fixed-effects t-test of the mean of
	// the scenarios' differences of mean logs, and the stratified
	// permutation test of the same statistic.
	refT, refPerm [3]int
	predicted     [3]float64 // mean predicted power at the true reduction
	runs          int
}

// run simulates runs suites of the design; perms is the number of
// permutations of the permutation reference (0: not run).
func (d suiteDesign) run(runs, perms int, seed uint64) (calibration, error) {
	var c calibration
	c.runs = runs
	rng := rand.New(rand.NewPCG(seed, 0x63616c6962))
	for i := 0; i < runs; i++ {
		scs := d.simulate(rng)
		res, err := Judge([]Metric{
			{Name: "tokens_active", Scenarios: scs[0], MinReductionPct: 15},
			{Name: "latency", Scenarios: scs[1], MinReductionPct: 15},
			{Name: "tool_calls", Scenarios: scs[2], MinReductionPct: 20},
		}, Options{})
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
			theta0 := LogRatioOf(verifyPR[k])
			if refFixedT(scs[k], theta0) <= 0.05 {
				c.refT[k]++
			}
			if perms > 0 && refPermutation(rng, scs[k], theta0, perms) <= 0.05 {
				c.refPerm[k]++
			}
			// The planner's prediction at the true reduction with the
			// noise this run measured.
			mr := NewMeanRatio(scs[k])
			effect := LogRatioOf(d.truth[k]) - theta0
			if mr.Known() && effect != 0 {
				c.predicted[k] += MeanRatioPower(mr.RelVar, min(d.baseReps, d.tgtReps), effect, planLevel(effect, 0.95, 3)) / float64(runs)
			}
		}
		if pass {
			c.gatePass++
		}
		if failed {
			c.gateFail++
		}
	}
	return c, nil
}

// logsOf are the logs of an arm's values, zeros floored at ZeroFloor.
func logsOf(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = math.Log(math.Max(v, ZeroFloor))
	}
	return out
}

func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, math.NaN()
	}
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

// refFixedT is the reference fixed-effects t-test: the mean over
// scenarios of the difference of the arms' mean logs, its variance the
// sum of s²/n, Welch–Satterthwaite degrees of freedom; the one-sided
// p-value of "below theta0". Scenarios with an arm of one repetition are
// left out.
func refFixedT(scs []Scenario, theta0 float64) float64 {
	var est, v, den float64
	n := 0
	for _, s := range scs {
		if len(s.Base) < 2 || len(s.Target) < 2 {
			continue
		}
		mb, vb := meanVar(logsOf(s.Base))
		mt, vt := meanVar(logsOf(s.Target))
		est += mt - mb
		ab, at := vb/float64(len(s.Base)), vt/float64(len(s.Target))
		v += ab + at
		den += ab*ab/float64(len(s.Base)-1) + at*at/float64(len(s.Target)-1)
		n++
	}
	if n == 0 || v == 0 {
		return 1
	}
	return PT((est/float64(n)-theta0)/(math.Sqrt(v)/float64(n)), v*v/den)
}

// refPermutation is the reference stratified permutation test of the
// same statistic (the mean over scenarios of the difference of mean
// logs, the target's logs moved by −theta0), the arm labels permuted
// within each scenario, perms random permutations: the one-sided
// p-value of "below theta0", (1 + #{T* <= T})/(1 + perms).
func refPermutation(rng *rand.Rand, scs []Scenario, theta0 float64, perms int) float64 {
	type st struct {
		all []float64
		nb  int
	}
	var strata []st
	for _, s := range scs {
		if len(s.Base) == 0 || len(s.Target) == 0 {
			continue
		}
		all := logsOf(s.Base)
		for _, v := range logsOf(s.Target) {
			all = append(all, v-theta0)
		}
		strata = append(strata, st{all, len(s.Base)})
	}
	stat := func() float64 {
		t := 0.0
		for _, s := range strata {
			mb, _ := meanVar(s.all[:s.nb])
			mt, _ := meanVar(s.all[s.nb:])
			t += mt - mb
		}
		return t
	}
	obs := stat()
	below := 0
	for p := 0; p < perms; p++ {
		for _, s := range strata {
			rng.Shuffle(len(s.all), func(i, j int) { s.all[i], s.all[j] = s.all[j], s.all[i] })
		}
		if stat() <= obs+1e-12 {
			below++
		}
	}
	return float64(1+below) / float64(1+perms)
}

// TestCalibration runs the designs of calibrationDesigns with seeded
// simulations and checks the gate against each design's bounds: the
// false pass of every check on the thresholds at most 5% plus the
// Monte-Carlo error, and the power of every check within 2 points (plus
// that error) of the better of the two simple reference tests on the
// same data. By default it runs 150 suites of six designs (without the
// permutation reference, the slow part); with
// BENCHGATE_CALIBRATE=N it runs every design N times and prints the
// Markdown rows of docs/statistics.md's table:
//
//	BENCHGATE_CALIBRATE=2000 go test -count=1 ./internal/stats -run TestCalibration -v
func TestCalibration(t *testing.T) {
	runs, full := 150, false
	if v := os.Getenv("BENCHGATE_CALIBRATE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("BENCHGATE_CALIBRATE: expected a number of runs, got %q", v)
		}
		runs, full = n, true
	}
	// The binomial error of a share near 5% at this many runs (two
	// standard errors), and of a difference of two paired shares.
	mc := 2 * math.Sqrt(0.05*0.95/float64(runs))
	var rows []string
	for i, d := range calibrationDesigns {
		if !full && !quickDesigns[d.name] || !strings.Contains(d.name, os.Getenv("BENCHGATE_CALIBRATE_ONLY")) {
			continue
		}
		perms := 0
		if full {
			perms = 400
		}
		c, err := d.run(runs, perms, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		share := float64(c.gatePass) / float64(runs)
		var cells [3]string
		for k := range cells {
			pass, fail := frac(c.checkPass[k], runs), frac(c.checkFail[k], runs)
			ref := frac(c.refT[k], runs)
			refText := fmt.Sprintf("t %.0f%%, perm. %.0f%%", pct(c.refT[k], runs), pct(c.refPerm[k], runs))
			if !full {
				refText = fmt.Sprintf("t %.0f%%", pct(c.refT[k], runs))
			}
			switch {
			case d.truth[k] > verifyPR[k]:
				cells[k] = fmt.Sprintf("pass %.0f%% (planned %.0f%%; %s)", pass*100, c.predicted[k]*100, refText)
				// Power within 2 points (plus the Monte-Carlo error of
				// a difference) of the fixed-effects t-test on the logs,
				// the reference that holds its level in every design
				// here. The permutation test is shown, not required: it
				// assumes both arms spread alike, and with 5 against 2
				// repetitions it passes up to 8% on the thresholds.
				pairedMC := 2 * math.Sqrt((pass*(1-pass)+ref*(1-ref))/float64(runs))
				if pass < ref-0.02-pairedMC {
					t.Errorf("%s: %s passed %.1f%% of runs, the fixed-effects t-test on logs %.1f%%", d.name, []string{"tokens", "latency", "tool calls"}[k], pass*100, ref*100)
				}
			case d.truth[k] < verifyPR[k]:
				cells[k] = fmt.Sprintf("fail %.0f%%, pass %.0f%%", fail*100, pass*100)
			default:
				cells[k] = fmt.Sprintf("false pass %.1f%%, fail %.1f%% (%s)", pass*100, fail*100, refText)
				if pass > 0.05+mc {
					t.Errorf("%s: check %d passed %.1f%% of runs on its threshold, more than 5%% + %.1f", d.name, k, pass*100, mc*100)
				}
			}
			if d.truth[k] >= verifyPR[k] && fail > 0.05+mc {
				t.Errorf("%s: check %d failed %.1f%% of runs at or above its threshold", d.name, k, fail*100)
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %.1f%% | %s | %s | %s |", d.name, share*100, cells[0], cells[1], cells[2]))
		if share < d.gateMin-mc || share > d.gateMax+mc {
			t.Errorf("%s: the gate passed %d of %d runs, expected a share in [%.2f, %.2f]", d.name, c.gatePass, runs, d.gateMin, d.gateMax)
		}
	}
	t.Logf("%d runs per design\n| design | gate passes | tokens_active | latency | tool_calls |\n|---|---:|---|---|---|\n%s", runs, strings.Join(rows, "\n"))
}

func frac(k, n int) float64 { return float64(k) / float64(n) }

func pct(k, n int) float64 { return float64(k) / float64(n) * 100 }

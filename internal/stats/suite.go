package stats

import (
	"math"
	"sort"
)

// Scopes say what a verdict is about.
const (
	// ScopeSuite: the scenarios run are the whole question (a fixed
	// suite). A check asks whether, on these scenarios, the target beats
	// the base by more than the threshold beyond the noise of the
	// repetitions; each scenario is a stratum of its repetitions
	// (StratifiedTest). The default.
	ScopeSuite = "suite"
	// ScopeScenarios: the scenarios stand for others like them; a check
	// asks whether the typical scenario's change clears the threshold,
	// with the scenario (its medians) as the unit (SignedRankCI). It
	// needs many scenarios: 6 before 95% can be reached at all.
	ScopeScenarios = "scenarios"
)

// ParseScope returns the canonical scope for name; "" is ScopeSuite.
func ParseScope(name string) (string, bool) {
	switch name {
	case "", ScopeSuite:
		return ScopeSuite, true
	case ScopeScenarios:
		return ScopeScenarios, true
	}
	return "", false
}

// exactLatticeLimit bounds the exact distribution of the stratified
// statistic (lattice points); above it, and for strata of more than
// exactStratumLimit values, the normal approximation is used.
const (
	exactLatticeLimit = 400000
	exactStratumLimit = 80
	exactStrataLimit  = 24
)

// stratum is one scenario's values in both arms, on one scale.
type stratum struct{ base, target []float64 }

// StratifiedResult is van Elteren's stratified rank-sum test of the
// target arm against the base arm.
type StratifiedResult struct {
	// P is the two-sided p-value; MinP the smallest p-value any outcome
	// of this design (these strata, these ties) could give, so 1 − MinP
	// is the most confidence it can reach.
	P, MinP float64
	// PLower and PUpper are the one-sided p-values, P(T <= t) (the
	// target is lower) and P(T >= t); MinOneSided is the smallest
	// one-sided p-value any outcome could give.
	PLower, PUpper, MinOneSided float64
	// Lower: the target's values are lower than the base's (the
	// statistic is below its mean under no difference).
	Lower  bool
	Method string
}

// StratifiedTest is van Elteren's test (van Elteren 1960): within each
// stratum the target's repetitions are ranked among both arms' (ties get
// their mid-rank), each stratum's rank sum is weighted by 1/(N+1) for N
// values in it, and the weighted sum T is compared with its distribution
// when the arms do not differ, which permutes the arm labels within each
// stratum only. Below the exact limits that distribution is computed
// exactly, ties included (the convolution of every stratum's
// distribution of its mid-rank sum), so the p-value is exact conditional
// on the ties; above, the normal approximation with the tie-corrected
// variance. A stratum with an empty arm carries nothing and is left out.
func StratifiedTest(strata []stratum) StratifiedResult {
	var use []stratum
	for _, s := range strata {
		if len(s.base) > 0 && len(s.target) > 0 {
			use = append(use, s)
		}
	}
	if len(use) == 0 {
		return StratifiedResult{P: 1, MinP: 1, PLower: 1, PUpper: 1, MinOneSided: 1, Method: MethodExact}
	}
	L := 1
	// The exact convolution costs about strata² × support²: beyond
	// exactStrataLimit strata the normal approximation, accurate with
	// that many, is used.
	exact := len(use) <= exactStrataLimit
	for _, s := range use {
		n := len(s.base) + len(s.target)
		if n > exactStratumLimit {
			exact = false
		}
		L = lcm(L, n+1)
		if L > exactLatticeLimit {
			exact = false
			L = 1
		}
	}
	if exact {
		if r, ok := stratifiedExact(use, L); ok {
			return r
		}
	}
	return stratifiedNormal(use)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

// midRanks2 returns, for the pooled values of s (base first, then
// target), the doubled mid-ranks (integers) of the target's values
// summed, and the tie groups of the pooled values as (size, doubled
// mid-rank) pairs.
func midRanks2(s stratum) (targetSum2 int, groups [][2]int) {
	type v struct {
		x      float64
		target bool
	}
	all := make([]v, 0, len(s.base)+len(s.target))
	for _, x := range s.base {
		all = append(all, v{x, false})
	}
	for _, x := range s.target {
		all = append(all, v{x, true})
	}
	sort.Slice(all, func(a, b int) bool { return all[a].x < all[b].x })
	for i := 0; i < len(all); {
		j := i
		for j+1 < len(all) && all[j+1].x == all[i].x {
			j++
		}
		r2 := (i + 1) + (j + 1) // doubled mid-rank of positions i..j (1-based)
		for k := i; k <= j; k++ {
			if all[k].target {
				targetSum2 += r2
			}
		}
		groups = append(groups, [2]int{j - i + 1, r2})
		i = j + 1
	}
	return targetSum2, groups
}

// rankSumDist is the distribution of the doubled mid-rank sum of n values
// drawn without replacement from tie groups: dist[s] = P(sum = s).
func rankSumDist(groups [][2]int, n int) []float64 {
	N, top := 0, 0
	for _, g := range groups {
		N += g[0]
		top += g[0] * g[1]
	}
	// ways[k][s]: the number of ways to choose k values whose doubled
	// mid-ranks sum to s.
	ways := make([][]float64, n+1)
	for k := range ways {
		ways[k] = make([]float64, top+1)
	}
	ways[0][0] = 1
	seen := 0
	for _, g := range groups {
		c, r2 := g[0], g[1]
		seen += c
		for k := min(n, seen); k >= 1; k-- {
			row := ways[k]
			for take := 1; take <= min(c, k); take++ {
				w := binom(c, take)
				from := ways[k-take]
				shift := take * r2
				for s := 0; s+shift <= top; s++ {
					if from[s] != 0 {
						row[s+shift] += from[s] * w
					}
				}
			}
		}
	}
	total := binom(N, n)
	out := ways[n]
	for s := range out {
		out[s] /= total
	}
	return out
}

// binom is the binomial coefficient as a float64.
func binom(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// stratifiedExact convolves the strata's distributions on the lattice of
// T·2L (weights L/(N+1) are integers); ok is false when the lattice would
// exceed exactLatticeLimit points.
func stratifiedExact(use []stratum, L int) (StratifiedResult, bool) {
	dist := []float64{1}
	obs, mean := 0, 0.0
	for _, s := range use {
		n := len(s.base) + len(s.target)
		w := L / (n + 1)
		t2, groups := midRanks2(s)
		d := rankSumDist(groups, len(s.target))
		if len(dist)+(len(d)-1)*w > exactLatticeLimit {
			return StratifiedResult{}, false
		}
		obs += w * t2
		mean += float64(w) * float64(len(s.target)*(n+1))
		next := make([]float64, len(dist)+(len(d)-1)*w)
		for a, pa := range dist {
			if pa == 0 {
				continue
			}
			for b, pb := range d {
				if pb != 0 {
					next[a+b*w] += pa * pb
				}
			}
		}
		dist = next
	}
	cdf := make([]float64, len(dist))
	run := 0.0
	for i, p := range dist {
		run += p
		cdf[i] = run
	}
	tail := func(t int) float64 { // 2·min(P(T <= t), P(T >= t))
		lo := cdf[t]
		hi := 1.0
		if t > 0 {
			hi = 1 - cdf[t-1]
		}
		return math.Min(1, 2*math.Min(lo, hi))
	}
	minP, minOne := 1.0, 1.0
	for t, p := range dist {
		if p > 0 {
			minP = math.Min(minP, tail(t))
		}
	}
	for t, p := range dist {
		if p > 0 {
			minOne = math.Min(cdf[t], 1)
			break
		}
	}
	for t := len(dist) - 1; t >= 0; t-- {
		if dist[t] > 0 {
			minOne = math.Min(minOne, 1-cdfBefore(cdf, t))
			break
		}
	}
	return StratifiedResult{P: tail(obs), MinP: minP, PLower: math.Min(1, cdf[obs]), PUpper: math.Min(1, 1-cdfBefore(cdf, obs)), MinOneSided: minOne,
		Lower: float64(obs) < mean, Method: MethodExact}, true
}

// cdfBefore is P(T < t) from the cumulative probabilities.
func cdfBefore(cdf []float64, t int) float64 {
	if t == 0 {
		return 0
	}
	return cdf[t-1]
}

// stratifiedNormal is the normal approximation of van Elteren's
// statistic with the tie-corrected variance of each stratum's rank sum,
// without continuity correction.
func stratifiedNormal(use []stratum) StratifiedResult {
	var t, mean, v, vMax float64
	for _, s := range use {
		m, n := float64(len(s.base)), float64(len(s.target))
		N := m + n
		w := 1 / (N + 1)
		t2, groups := midRanks2(s)
		ties := 0.0
		for _, g := range groups {
			c := float64(g[0])
			ties += c*c*c - c
		}
		t += w * float64(t2) / 2
		mean += w * n * (N + 1) / 2
		v += w * w * m * n / 12 * ((N + 1) - ties/(N*(N-1)))
		vMax += w * w * m * n / 12 * (N + 1)
	}
	if v <= 0 {
		return StratifiedResult{P: 1, MinP: 1, PLower: 1, PUpper: 1, MinOneSided: 1, Method: MethodNormal}
	}
	z := (t - mean) / math.Sqrt(v)
	// The most extreme outcome: every target value below every base
	// value in every stratum, which ties can only make less extreme.
	zMax := 0.0
	for _, s := range use {
		m, n := float64(len(s.base)), float64(len(s.target))
		zMax += 1 / (m + n + 1) * m * n / 2
	}
	zMax /= math.Sqrt(v)
	return StratifiedResult{P: math.Min(1, 2*pnorm(-math.Abs(z))), MinP: math.Min(1, 2*pnorm(-zMax)), PLower: pnorm(z), PUpper: pnorm(-z), MinOneSided: pnorm(-zMax),
		Lower: z < 0, Method: MethodNormal}
}

// StratifiedOutcomes is StratifiedTest of outcomes (1 succeeded, 0 not),
// one base and one target slice per scenario: with two values van
// Elteren's exact test is the exact stratified test of the two arms'
// success rates given each scenario's totals. Lower: the target
// succeeded less often.
func StratifiedOutcomes(base, target [][]float64) StratifiedResult {
	strata := make([]stratum, 0, len(base))
	for i := range base {
		// Ranked so that a success is the larger value: the target's
		// rank sum is low when it fails more.
		strata = append(strata, stratum{base: base[i], target: target[i]})
	}
	return StratifiedTest(strata)
}

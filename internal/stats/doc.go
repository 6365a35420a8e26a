// Package stats holds the paired statistics benchgate gates on when a
// point estimate is not enough: agent runs are noisy, so a median
// reduction of 16% from four scenarios says little about the next run.
//
// The scenario is the unit. Each arm's repetitions of a scenario collapse
// to their median (as Metric System v2 does), the pair gives one log-ratio
// log(target/base) (a zero median floored at half a unit in either arm),
// measured from the threshold in one computation (Excess, so that a
// scenario exactly on the threshold is a zero), and everything else is
// computed over those values:
//
//   - HodgesLehmann: the estimate of the typical log-ratio;
//   - SignedRankCI / SignedRankTest: Wilcoxon's signed-rank interval and
//     test, exact below ExactLimit pairs without ties or zeros, the normal
//     approximation with tie and continuity corrections otherwise, both
//     computed as R's wilcox.test computes them;
//   - BootstrapCI: a two-stage paired bootstrap as a cross-check;
//   - BinomTest, ClopperPearson, McNemarExact: exact tests on counts;
//   - Holm: step-down adjustment across metrics gated together;
//   - MDE: the smallest reduction a run of this size would detect;
//   - Judge: the three-way verdict (pass, fail, inconclusive,
//     underpowered) of reductions against thresholds;
//   - EstimateNoise, Power, ScenariosFor, NewPlan: the power planner, how
//     many scenarios and repetitions would decide a check.
//
// Everything is a pure function of its arguments: no global state, and
// the bootstrap takes its seed from the caller so runs are reproducible.
package stats

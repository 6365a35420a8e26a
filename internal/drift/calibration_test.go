package drift

import (
	"os"
	"testing"
)

// TestDriftCalibration measures the false-alarm rate of drift at the
// real suites' noise: seeded histories without a change, each run 4
// scenarios x 5 repetitions per mode, of 20 to 200 runs; per series (the
// share of series with a change point) and per history (the share of
// histories with one in any of their 60 series, or of their 12 suite
// series). docs/drift.md records
// the long run:
//
//	BENCHGATE_DRIFT_CALIBRATION=long go test -count=1 -run TestDriftCalibration -v ./internal/drift/
//
// By default it runs a few seeds per length and checks the per-series
// rate stays at most 5%.
func TestDriftCalibration(t *testing.T) {
	seeds := map[int]int{20: 20, 40: 20, 100: 6, 200: 3}
	if os.Getenv("BENCHGATE_DRIFT_CALIBRATION") == "long" {
		seeds = map[int]int{20: 400, 40: 400, 100: 200, 200: 200}
	}
	for _, runs := range []int{20, 40, 100, 200} {
		perSeries, perHistory := nullRates(t, runs, seeds[runs], false)
		_, suiteHistory := nullRates(t, runs, seeds[runs], true)
		t.Logf("%3d runs, %3d histories: a change point in %.2f%% of series, %.1f%% of histories (%.1f%% with --suite-only)", runs, seeds[runs], 100*perSeries, 100*perHistory, 100*suiteHistory)
		if perSeries > 0.05 {
			t.Errorf("%d runs: false alarms in %.2f%% of series, want at most 5%%", runs, 100*perSeries)
		}
	}
}

// TestDriftCalibrationPower measures, with
// BENCHGATE_DRIFT_CALIBRATION=long (docs/drift.md records the run), how
// often a step at run 25 of 40 is found at run 25 ± 1 (see steps, 400
// seeds each) and holds each to its share; how often one outlier run
// raises a change point (400 seeds each, at most 1%); how often two
// steps are both found (400 seeds, at least 80%). By default
// TestDriftFindsAStepAtTheRealNoise, TestDriftOneOutlierRunIsNotAChange
// and TestDriftTwoStepsAreBothFound check the same at fewer seeds.
func TestDriftCalibrationPower(t *testing.T) {
	if os.Getenv("BENCHGATE_DRIFT_CALIBRATION") != "long" {
		t.Skip("the long calibration: BENCHGATE_DRIFT_CALIBRATION=long")
	}
	const seeds = 400
	for _, tc := range steps {
		if got := stepRate(t, tc.metric, tc.mode, tc.k, seeds); got < tc.want {
			t.Errorf("%s %s step %.0fσ found at 25±1 in %.1f%% of seeds, want at least %.0f%%", tc.metric, tc.mode, tc.k, 100*got, 100*tc.want)
		}
	}
	for _, tc := range outliers {
		if got := outlierAlarms(t, tc.metric, tc.mode, tc.factor, seeds); got > seeds/100 {
			t.Errorf("%s %s: one outlier run raised a change point in %d of %d seeds, want at most 1%%", tc.metric, tc.mode, got, seeds)
		}
	}
	if both := twoStepsFound(t, seeds); both < seeds*8/10 {
		t.Errorf("both steps found in %d of %d seeds, want at least 80%%", both, seeds)
	}
}

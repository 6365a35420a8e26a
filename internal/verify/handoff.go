package verify

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/internal/bench"
)

// confirmationModel is the provider/model the confirmation commands run
// on, from their BENCH_PROVIDER_ID and BENCH_MODEL_ID, or "".
func confirmationModel(cmds []bench.Command) string {
	for _, c := range cmds {
		var provider, model string
		for _, kv := range c.Env {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "BENCH_PROVIDER_ID":
				provider = v
			case "BENCH_MODEL_ID":
				model = v
			}
		}
		if model != "" {
			if provider != "" {
				return provider + "/" + model
			}
			return model
		}
	}
	return ""
}

// confirmationIntro introduces the confirmation commands. They run on the
// seed's canonical model whatever model the sets ran on, which a reader
// would otherwise take for a mistake, so it says why.
func confirmationIntro(runModel, confirmModel string) string {
	if confirmModel == "" {
		return "Canonical confirmation"
	}
	_, model, _ := strings.Cut(confirmModel, "/")
	if model == "" {
		model = confirmModel
	}
	if model == runModel {
		return fmt.Sprintf("Canonical confirmation on %s (verify_pr and verify_release, as seed 000 requires)", confirmModel)
	}
	return fmt.Sprintf("Canonical confirmation on %s, not this run's %s: seed 000 confirms every run with verify_pr and verify_release on that one model, so that runs on any model are confirmed against the same reference", confirmModel, runModel)
}

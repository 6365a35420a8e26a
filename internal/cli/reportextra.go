package cli

import (
	"github.com/benchgate/benchgate/internal/lookback"
	"github.com/benchgate/benchgate/internal/verify"
)

// StatsJSONName and StatsMDName are the stats files written beside the
// summaries.
const (
	StatsJSONName = lookback.StatsJSONName
	StatsMDName   = lookback.StatsMDName
)

// found hands what a lookback found to the Action (env.Result), which
// renders it from there, never from the files.
func found(env *Env) func(*lookback.Result) {
	return func(r *lookback.Result) {
		if env.Result != nil {
			env.Result.Lookback = r
		}
	}
}

// setLookback is set's hook for the lookback flags; nil without them.
func setLookback(env *Env, x *lookback.Options) verify.Lookback {
	return x.SetHook(env.Dir, found(env))
}

package action

import "github.com/sethvargo/go-githubactions"

// maskSecrets registers every secret input with the runner's log masking,
// the whole value and each of its lines (the runner matches masks line by
// line, so a multi-line key would otherwise show its lines unmasked).
func maskSecrets(a *githubactions.Action) {
	for _, in := range Inputs() {
		if in.Kind != Secret {
			continue
		}
		if v := a.GetInput(in.Name); v != "" {
			a.AddMask(v)
			for _, l := range lines(v) {
				if l != v {
					a.AddMask(l)
				}
			}
		}
	}
}

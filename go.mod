module github.com/benchgate/benchgate

go 1.26.8

require (
	github.com/google/go-github/v62 v62.0.0 // indirect
	github.com/sethvargo/go-githubactions v1.4.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

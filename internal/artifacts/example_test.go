package artifacts_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/benchgate/benchgate/internal/artifacts"
)

// An Action step uploads one artifact per result folder; a failed upload is
// reported as a warning and the results stay on disk.
func Example() {
	client, err := artifacts.NewClientFromEnv(os.Getenv)
	if err != nil {
		fmt.Println("::warning::artifacts not uploaded:", err)
		return
	}
	client.RetentionDays = 14
	up, err := client.UploadDir(context.Background(), "benchgate-set-core-run-1", "out/sets/core")
	switch {
	case errors.Is(err, artifacts.ErrNoFiles):
		fmt.Println("::notice::nothing to upload for set core")
	case err != nil:
		fmt.Println("::warning::", err)
	default:
		fmt.Println(artifacts.ArtifactURL(os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID"), up.ID))
	}
}

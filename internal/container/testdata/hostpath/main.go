// Command hostpath runs inside a container with the engine's socket, as
// benchgate does in the Action's image: for each argument it prints the
// host path the engine must mount (or "error: ..."), and with -sibling
// DIR it starts a sibling container from IMAGE with DIR mounted through
// that path and has it write DIR/sibling.txt.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/benchgate/benchgate/internal/container"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dc, err := container.New(os.Getenv("DOCKER_HOST"))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	args := os.Args[1:]
	if len(args) == 3 && args[0] == "-sibling" {
		dir, image := args[1], args[2]
		src, err := dc.HostPath(ctx, dir)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		id, err := dc.Create(ctx, container.Spec{Image: image, Entrypoint: []string{"/bin/sh", "-c", "sleep 60"},
			Mounts: []container.Mount{{Source: src, Target: dir}}, Labels: map[string]string{"io.benchgate.test": "hostpath"}})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		defer dc.RemoveDetached(id, 30*time.Second)
		if err := dc.Start(ctx, id); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		res, err := dc.Exec(ctx, id, container.ExecSpec{Cmd: []string{"/bin/sh", "-c", "echo from the sibling > " + dir + "/sibling.txt"}})
		if err != nil || res.ExitCode != 0 {
			fmt.Println("error: exec:", err, res.ExitCode)
			os.Exit(1)
		}
		fmt.Println("sibling wrote", dir+"/sibling.txt")
		return
	}
	for _, p := range args {
		hp, err := dc.HostPath(ctx, p)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(hp)
	}
}

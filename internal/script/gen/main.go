// Command gen writes args_gen.go, the Go of the scripts' arguments, from
// the headers of lua/*.lua: go generate runs it in internal/script.
package main

import (
	"fmt"
	"go/format"
	"os"

	"github.com/articlevote/voting/internal/script"
)

func main() {
	src, err := script.GoArguments()
	if err == nil {
		var out []byte
		if out, err = format.Source([]byte(src)); err == nil {
			err = os.WriteFile("args_gen.go", out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

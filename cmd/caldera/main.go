// Command caldera is the Caldera batch scheduler: `caldera simulate` runs the
// scheduler against an embedded cluster built from manifests.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "caldera:", err)
		os.Exit(1)
	}
}

// Command gen writes the TypeScript list of error codes (errs.TypeScript).
package main

import (
	"flag"
	"fmt"
	"os"

	"crewagent/backend/errs"
)

func main() {
	out := flag.String("out", "", "the file to write")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	if err := os.WriteFile(*out, errs.TypeScript(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

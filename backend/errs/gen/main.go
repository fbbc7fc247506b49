// Command gen writes the TypeScript list of error codes (errs.TypeScript)
// and the English words of the window's catalogue (errs.LocaleJSON).
package main

import (
	"flag"
	"fmt"
	"os"

	"crewagent/backend/errs"
)

func main() {
	out := flag.String("out", "", "the TypeScript file to write")
	locale := flag.String("locale", "", "the JSON catalogue to write")
	flag.Parse()
	if *out == "" || *locale == "" {
		fmt.Fprintln(os.Stderr, "gen: -out and -locale are required")
		os.Exit(2)
	}
	words, err := errs.LocaleJSON()
	if err == nil {
		err = os.WriteFile(*out, errs.TypeScript(), 0o644)
	}
	if err == nil {
		err = os.WriteFile(*locale, words, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

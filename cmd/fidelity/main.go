// Command fidelity runs the context fidelity benchmark (backend/fidelity)
// and prints what share of the planted facts each strategy keeps at each
// budget.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"crewagent/backend/fidelity"
)

func main() {
	n := flag.Int("conversations", 8, "number of generated conversations (English and Chinese, chat and agent)")
	turns := flag.Int("turns", 90, "user turns per conversation")
	ratiosFlag := flag.String("ratios", "1.5,3,10", "history size over what fits, comma-separated")
	variantsFlag := flag.String("variants", strings.Join(fidelity.Variants, ","), "variants to measure")
	verbose := flag.Bool("v", false, "print every conversation's outcome and the facts it missed")
	style := flag.String("style", "both", "generator: a (the corpus the digest was developed on), b (phrasings it was not tuned on), or both")
	flag.Parse()
	var ratios []float64
	for _, s := range strings.Split(*ratiosFlag, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || r <= 1 {
			fmt.Fprintf(os.Stderr, "fidelity: bad ratio %q (want numbers above 1, e.g. 1.5,3,10)\n", s)
			os.Exit(2)
		}
		ratios = append(ratios, r)
	}
	sets := map[string][]fidelity.Conversation{}
	var order []string
	if *style == "a" || *style == "both" {
		sets["a"], order = fidelity.Corpus(*n, *turns), append(order, "a")
	}
	if *style == "b" || *style == "both" {
		sets["b"], order = fidelity.CorpusB(*n, *turns), append(order, "b")
	}
	if len(order) == 0 {
		fmt.Fprintf(os.Stderr, "fidelity: -style must be a, b or both\n")
		os.Exit(2)
	}
	for _, name := range order {
		outs, err := fidelity.Measure(context.Background(), sets[name], ratios, strings.Split(*variantsFlag, ","))
		if err != nil {
			fmt.Fprintf(os.Stderr, "fidelity: %v\n", err)
			os.Exit(1)
		}
		report(name, outs, *verbose)
	}
}

func report(style string, outs []fidelity.Outcome, verbose bool) {
	if verbose {
		for _, o := range outs {
			fmt.Printf("%-32s %5gx %-8s limit %6d history %7d facts %2d/%2d requests %3d valid %3d within %3d max %6d verbatim %v\n",
				o.Conversation, o.Ratio, o.Variant, o.Limit, o.History, o.Kept, o.Facts, o.Requests, o.Valid, o.WithinBudget, o.MaxUsed, o.NewestVerbatim)
			for _, m := range o.Missing {
				fmt.Printf("    missing %s\n", m)
			}
			for _, f := range o.Failures {
				fmt.Printf("    failure %s\n", f)
			}
		}
		fmt.Println()
	}
	fmt.Printf("style %s:\n", style)
	fidelity.Print(os.Stdout, fidelity.Summarize(outs))
	fmt.Println()
}

// Command fidelity runs the context fidelity benchmark (backend/fidelity)
// and prints, per generator and per budget, what share of the planted facts
// each strategy keeps (overall, per kind, per depth beside keep-newest
// truncation), the knowledge updates, protocol validity, budget adherence,
// the newest message sent verbatim, prefix reuse between consecutive
// requests and compactions.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"crewagent/backend/fidelity"
)

func main() {
	n := flag.Int("conversations", 8, "conversations per generator (English and Chinese, agent and chat)")
	turns := flag.Int("turns", 90, "user turns per agent conversation (chat conversations have twice as many)")
	ratiosFlag := flag.String("ratios", "1.5,3,10", "history size over what fits, comma-separated")
	variantsFlag := flag.String("variants", strings.Join(fidelity.DefaultVariants, ","), "variants to measure: "+strings.Join(fidelity.Variants, ", "))
	verbose := flag.Bool("v", false, "print every conversation's outcome and the facts it missed")
	asJSON := flag.Bool("json", false, "print the outcomes as JSON instead of tables")
	style := flag.String("style", fidelity.StyleHeldOut, "generator: heldout (the figures to report), tune (to develop against), a or b (the legacy generators, whose final message names topics), or all")
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
	variants := strings.Split(*variantsFlag, ",")
	for _, v := range variants {
		if !contains(fidelity.Variants, v) {
			fmt.Fprintf(os.Stderr, "fidelity: unknown variant %q (want %s)\n", v, strings.Join(fidelity.Variants, ", "))
			os.Exit(2)
		}
	}
	styles := []string{*style}
	if *style == "all" {
		styles = fidelity.Styles
	} else if !contains(fidelity.Styles, *style) {
		fmt.Fprintf(os.Stderr, "fidelity: -style must be heldout, tune, a, b or all\n")
		os.Exit(2)
	}
	for _, name := range styles {
		start := time.Now()
		convs := fidelity.CorpusOf(name, *n, *turns)
		outs, err := fidelity.Measure(context.Background(), convs, ratios, variants)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fidelity: %v\n", err)
			os.Exit(1)
		}
		if *asJSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(map[string]any{"style": name, "outcomes": outs, "summary": fidelity.Summarize(outs)}); err != nil {
				fmt.Fprintf(os.Stderr, "fidelity: %v\n", err)
				os.Exit(1)
			}
			continue
		}
		report(name, convs, outs, *verbose, time.Since(start))
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func report(style string, convs []fidelity.Conversation, outs []fidelity.Outcome, verbose bool, took time.Duration) {
	if verbose {
		for _, o := range outs {
			fmt.Printf("%-30s %5gx %-8s limit %6d history %7d facts %2d/%2d requests %3d valid %3d within %3d max %6d verbatim %v compactions %d thrash %d (forced %d) prefix %.1f%%\n",
				o.Conversation, o.Ratio, o.Variant, o.Limit, o.History, o.Kept, o.Facts, o.Requests, o.Valid, o.WithinBudget, o.MaxUsed, o.NewestVerbatim,
				o.Compactions, o.Thrash, o.Forced, o.Prefix.Mean()*100)
			for _, m := range o.Missing {
				fmt.Printf("    missing %s\n", m)
			}
			for _, f := range o.Failures {
				fmt.Printf("    failure %s\n", f)
			}
		}
		fmt.Println()
	}
	facts := 0
	for _, c := range convs {
		facts += len(c.Facts)
	}
	final := "names nothing (\"continue\", \"recap what still matters\"; named: the topics of three facts)"
	if style == fidelity.StyleA || style == fidelity.StyleB {
		final = "names the topics of three facts (legacy)"
	}
	fmt.Printf("style %s: %d conversations, %d planted facts; the final message %s; %s\n", style, len(convs), facts, final, took.Round(time.Second))
	fidelity.Print(os.Stdout, fidelity.Summarize(outs))
	fmt.Println()
}

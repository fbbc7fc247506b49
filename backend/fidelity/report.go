package fidelity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Measure runs every conversation at every ratio with every variant, as
// many runs at once as there are cores (each has its own store).
func Measure(ctx context.Context, convs []Conversation, ratios []float64, variants []string) ([]Outcome, error) {
	type job struct {
		conv    *Conversation
		ratio   float64
		variant string
	}
	var jobs []job
	for i := range convs {
		for _, ratio := range ratios {
			for _, v := range variants {
				jobs = append(jobs, job{&convs[i], ratio, v})
			}
		}
	}
	out := make([]Outcome, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				dir, err := os.MkdirTemp("", "fidelity-run")
				if err != nil {
					errs[i] = err
					continue
				}
				out[i], errs[i] = Run(ctx, j.conv, j.ratio, j.variant, dir)
				os.RemoveAll(dir)
				if errs[i] != nil {
					errs[i] = fmt.Errorf("%s at %gx (%s): %w", j.conv.Name, j.ratio, j.variant, errs[i])
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

// Row is one line of the summary: a variant at a ratio.
type Row struct {
	Ratio   float64
	Variant string
	// Kept is the share of all planted facts kept (all conversations).
	Kept         float64
	Valid        float64 // share of requests protocol-valid
	WithinBudget float64 // share of requests within the limit
	Verbatim     float64 // share of conversations whose newest message was sent verbatim
	Requests     int
	ByKind       map[string]float64
	ByLang       map[string]float64
}

// Summarize aggregates outcomes by ratio and variant.
func Summarize(outs []Outcome) []Row {
	type acc struct {
		facts, kept, reqs, valid, within, convs, verbatim int
		kind, lang                                        map[string][2]int
	}
	keys := map[[2]string]*acc{}
	var order [][2]string
	for _, o := range outs {
		k := [2]string{fmt.Sprintf("%g", o.Ratio), o.Variant}
		a := keys[k]
		if a == nil {
			a = &acc{kind: map[string][2]int{}, lang: map[string][2]int{}}
			keys[k] = a
			order = append(order, k)
		}
		a.facts += o.Facts
		a.kept += o.Kept
		a.reqs += o.Requests
		a.valid += o.Valid
		a.within += o.WithinBudget
		a.convs++
		if o.NewestVerbatim {
			a.verbatim++
		}
		for kind, v := range o.ByKind {
			x := a.kind[kind]
			a.kind[kind] = [2]int{x[0] + v[0], x[1] + v[1]}
		}
		x := a.lang[o.Lang]
		a.lang[o.Lang] = [2]int{x[0] + o.Kept, x[1] + o.Facts}
	}
	var rows []Row
	for _, k := range order {
		a := keys[k]
		var ratio float64
		fmt.Sscan(k[0], &ratio)
		r := Row{Ratio: ratio, Variant: k[1], Kept: share(a.kept, a.facts), Valid: share(a.valid, a.reqs), WithinBudget: share(a.within, a.reqs),
			Verbatim: share(a.verbatim, a.convs), Requests: a.reqs, ByKind: map[string]float64{}, ByLang: map[string]float64{}}
		for kind, v := range a.kind {
			r.ByKind[kind] = share(v[0], v[1])
		}
		for lang, v := range a.lang {
			r.ByLang[lang] = share(v[0], v[1])
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Ratio < rows[j].Ratio })
	return rows
}

func share(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Print writes the summary table.
func Print(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "%-6s %-8s %7s %7s %7s %8s %6s  %s\n", "over", "variant", "facts", "valid", "budget", "verbatim", "reqs", "by kind / language")
	for _, r := range rows {
		var kinds []string
		for _, k := range []string{KindRequirement, KindPath, KindNumber, KindDecision, KindName, KindTool} {
			if v, ok := r.ByKind[k]; ok {
				kinds = append(kinds, fmt.Sprintf("%s %.0f%%", k, v*100))
			}
		}
		for _, l := range []string{"en", "zh"} {
			if v, ok := r.ByLang[l]; ok {
				kinds = append(kinds, fmt.Sprintf("%s %.0f%%", l, v*100))
			}
		}
		valid, within, verbatim := fmt.Sprintf("%.0f%%", r.Valid*100), fmt.Sprintf("%.0f%%", r.WithinBudget*100), fmt.Sprintf("%.0f%%", r.Verbatim*100)
		if r.Variant == Newest {
			valid, within, verbatim = "-", "-", "-"
		}
		fmt.Fprintf(w, "%-6s %-8s %6.1f%% %7s %7s %8s %6d  %s\n", fmt.Sprintf("%gx", r.Ratio), r.Variant, r.Kept*100, valid, within, verbatim, r.Requests, strings.Join(kinds, ", "))
	}
}

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
	Facts        int
	Valid        float64 // share of requests protocol-valid
	WithinBudget float64 // share of requests within the limit
	Verbatim     float64 // share of conversations whose newest message was sent verbatim
	Requests     int
	Convs        int
	ByKind       map[string]float64
	ByDepth      map[string]float64
	ByLang       map[string]float64
	// Knowledge updates: shares with the newest value present and with a
	// stale value without its correction.
	Updates       int
	UpdatesNewest float64
	UpdatesStale  float64
	// Prefix reuse between consecutive requests, over all pairs and over
	// the pairs around a compaction.
	Prefix, PrefixComp Reuse
	// Compactions and thrashing (compactions in consecutive turns), summed
	// over the conversations, and the turns driven; Forced are the
	// compactions in consecutive turns that a single turn forced (see
	// Outcome.Forced).
	Compactions, Thrash, Forced, Turns int
}

// Summarize aggregates outcomes by ratio and variant.
func Summarize(outs []Outcome) []Row {
	type acc struct {
		facts, kept, reqs, valid, within, convs, verbatim int
		upd, updNew, updStale                             int
		kind, depth, lang                                 map[string][2]int
		prefix, prefixComp                                Reuse
		comps, thrash, forced, turns                      int
	}
	keys := map[[2]string]*acc{}
	var order [][2]string
	for _, o := range outs {
		k := [2]string{fmt.Sprintf("%g", o.Ratio), o.Variant}
		a := keys[k]
		if a == nil {
			a = &acc{kind: map[string][2]int{}, depth: map[string][2]int{}, lang: map[string][2]int{}}
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
		a.upd += o.Updates
		a.updNew += o.UpdatesNewest
		a.updStale += o.UpdatesStale
		a.prefix.merge(o.Prefix)
		a.prefixComp.merge(o.PrefixComp)
		a.comps += o.Compactions
		a.thrash += o.Thrash
		a.forced += o.Forced
		a.turns += o.Turns
		for kind, v := range o.ByKind {
			x := a.kind[kind]
			a.kind[kind] = [2]int{x[0] + v[0], x[1] + v[1]}
		}
		for d, v := range o.ByDepth {
			x := a.depth[d]
			a.depth[d] = [2]int{x[0] + v[0], x[1] + v[1]}
		}
		x := a.lang[o.Lang]
		a.lang[o.Lang] = [2]int{x[0] + o.Kept, x[1] + o.Facts}
	}
	var rows []Row
	for _, k := range order {
		a := keys[k]
		var ratio float64
		fmt.Sscan(k[0], &ratio)
		r := Row{Ratio: ratio, Variant: k[1], Kept: share(a.kept, a.facts), Facts: a.facts, Valid: share(a.valid, a.reqs), WithinBudget: share(a.within, a.reqs),
			Verbatim: share(a.verbatim, a.convs), Requests: a.reqs, Convs: a.convs, ByKind: map[string]float64{}, ByDepth: map[string]float64{}, ByLang: map[string]float64{},
			Updates: a.upd, UpdatesNewest: share(a.updNew, a.upd), UpdatesStale: share(a.updStale, a.upd),
			Prefix: a.prefix, PrefixComp: a.prefixComp, Compactions: a.comps, Thrash: a.thrash, Forced: a.forced, Turns: a.turns}
		for kind, v := range a.kind {
			r.ByKind[kind] = share(v[0], v[1])
		}
		for d, v := range a.depth {
			r.ByDepth[d] = share(v[0], v[1])
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

// Targets are the shares of facts the default strategy is to keep at each
// ratio (the final message naming nothing); PrefixTarget the mean prefix
// reuse between consecutive requests.
var (
	Targets      = map[float64]float64{1.5: 0.90, 3: 0.80, 10: 0.60}
	PrefixTarget = 0.90
)

func pct(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }

// Print writes the summary: per ratio, one line per variant (facts kept
// against the target, validity, budget, verbatim, prefix reuse,
// compactions), then the default's facts per kind and per depth beside
// keep-newest truncation, and the knowledge updates.
func Print(w io.Writer, rows []Row) {
	byKey := map[string]Row{}
	var ratios []float64
	for _, r := range rows {
		key := fmt.Sprintf("%g/%s", r.Ratio, r.Variant)
		byKey[key] = r
		if len(ratios) == 0 || ratios[len(ratios)-1] != r.Ratio {
			ratios = append(ratios, r.Ratio)
		}
	}
	for _, ratio := range ratios {
		fmt.Fprintf(w, "%gx over budget", ratio)
		if t, ok := Targets[ratio]; ok {
			fmt.Fprintf(w, " (target: default keeps >= %.0f%% of facts, prefix reuse >= %.0f%%)", t*100, PrefixTarget*100)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  %-8s %7s %6s %6s %8s %5s  %-17s %-17s %s\n", "variant", "facts", "valid", "budget", "verbatim", "reqs", "prefix mean/min", "at compaction", "compactions/turns, thrash (forced by one turn)")
		for _, r := range rows {
			if r.Ratio != ratio {
				continue
			}
			if r.Variant == Newest {
				fmt.Fprintf(w, "  %-8s %7s %6s %6s %8s %5s\n", r.Variant, pct(r.Kept), "-", "-", "-", "-")
				continue
			}
			reuse := func(x Reuse) string {
				if x.Pairs == 0 {
					return "-"
				}
				return fmt.Sprintf("%s/%s", pct(x.Mean()), pct(x.Min))
			}
			fmt.Fprintf(w, "  %-8s %7s %6.0f%% %5.0f%% %7.0f%% %5d  %-17s %-17s %d/%d, %d (%d)\n", r.Variant, pct(r.Kept), r.Valid*100, r.WithinBudget*100, r.Verbatim*100, r.Requests,
				reuse(r.Prefix), reuse(r.PrefixComp), r.Compactions, r.Turns, r.Thrash, r.Forced)
		}
		d, okD := byKey[fmt.Sprintf("%g/%s", ratio, Default)]
		n, okN := byKey[fmt.Sprintf("%g/%s", ratio, Newest)]
		if !okD {
			continue
		}
		side := func(m, mn map[string]float64, k string) string {
			v, ok := m[k]
			if !ok {
				return ""
			}
			s := fmt.Sprintf("%s %.0f%%", k, v*100)
			if okN {
				s += fmt.Sprintf(" (keep-newest %.0f%%)", mn[k]*100)
			}
			return s
		}
		var kinds, depths []string
		for _, k := range Kinds {
			if s := side(d.ByKind, n.ByKind, k); s != "" {
				kinds = append(kinds, s)
			}
		}
		for _, k := range Depths {
			if s := side(d.ByDepth, n.ByDepth, k); s != "" {
				depths = append(depths, s)
			}
		}
		fmt.Fprintf(w, "  default by kind:  %s\n", strings.Join(kinds, ", "))
		fmt.Fprintf(w, "  default by depth: %s\n", strings.Join(depths, ", "))
		if d.Updates > 0 {
			fmt.Fprintf(w, "  updates: newest present %.0f%%, stale without correction %.0f%% (%d updates)", d.UpdatesNewest*100, d.UpdatesStale*100, d.Updates)
			if okN {
				fmt.Fprintf(w, "; keep-newest: %.0f%%, %.0f%%", n.UpdatesNewest*100, n.UpdatesStale*100)
			}
			fmt.Fprintln(w)
		}
		var langs []string
		for _, l := range []string{"en", "zh"} {
			if v, ok := d.ByLang[l]; ok {
				langs = append(langs, fmt.Sprintf("%s %.0f%%", l, v*100))
			}
		}
		fmt.Fprintf(w, "  default by language: %s\n", strings.Join(langs, ", "))
		fmt.Fprintf(w, "  verdict: %s\n", strings.Join(Verdict(d, n, okN), "; "))
	}
}

// Verdict lists how the default row d of a ratio stands against the
// targets: facts kept, prefix reuse, no thrashing, every request valid,
// within budget and with the newest message verbatim, and (when n, the
// keep-newest row of the ratio, is there) no depth bucket below keep-newest.
func Verdict(d, n Row, withNewest bool) []string {
	var out []string
	check := func(ok bool, what string) {
		if ok {
			out = append(out, what+" ok")
		} else {
			out = append(out, what+" MISSED")
		}
	}
	if t, ok := Targets[d.Ratio]; ok {
		check(d.Kept >= t, fmt.Sprintf("facts %s (>= %.0f%%)", pct(d.Kept), t*100))
	}
	check(d.Prefix.Mean() >= PrefixTarget, fmt.Sprintf("prefix reuse %s (>= %.0f%%)", pct(d.Prefix.Mean()), PrefixTarget*100))
	check(d.Thrash-d.Forced == 0, fmt.Sprintf("%d compactions in consecutive turns not forced by a single turn (0; %d forced)", d.Thrash-d.Forced, d.Forced))
	check(d.Valid == 1 && d.WithinBudget == 1 && d.Verbatim == 1, "valid, within budget, verbatim (100%)")
	if withNewest {
		var below []string
		for _, k := range Depths {
			if v, ok := n.ByDepth[k]; ok && d.ByDepth[k] < v {
				below = append(below, fmt.Sprintf("%s %.0f%% < %.0f%%", k, d.ByDepth[k]*100, v*100))
			}
		}
		what := "no depth below keep-newest"
		if len(below) > 0 {
			what += " (" + strings.Join(below, ", ") + ")"
		}
		check(len(below) == 0, what)
	}
	return out
}

package desktop

import "os"

// webProcessEnv is the environment the page's process (WebKit's web
// process, started by the window and inheriting its environment) runs with
// unless the user set these variables. All are JavaScriptCore options.
//
//   - useDFGJIT=false: the page runs with the interpreter and the baseline
//     compiler only. The optimising compilers pay off for long computations;
//     the page's work is short bursts of UI code, for which they cost memory
//     (about 20 MB with a 10,000-message conversation open) and compile
//     threads competing with the page on small machines, with no gain
//     measured in the frame times (e2e perf and markdown specs).
//   - aggressiveHeapThresholdInMB, largeHeapSize, smallHeapGrowthFactor: when
//     to collect. On a machine with 16 GB of memory or more JavaScriptCore
//     lets a page's heap grow to about four times what survived the last
//     collection, and never below 32 MB, before it collects again; the page
//     keeps about 13 MB alive with a long conversation open, so its heap
//     went from about 20 to 50 MB between collections, and after the user
//     stopped it stayed wherever it had got to (21, 31 or 41 MB, run to
//     run). The options make it collect as on a smaller machine, at 1.5
//     times what survived and at least 16 MB: the page's process ends at
//     227-229 MB in every run instead of 232-265 (e2e perf, the window left
//     alone for 3 s after scrolling a 10,000-message conversation), with the
//     frame times within their run-to-run spread (medians of five runs each,
//     alternated: the same while scrolling and while an answer streams). A
//     page that keeps more alive still gets a heap that grows with it.
var webProcessEnv = map[string]string{
	"JSC_useDFGJIT":                   "false",
	"JSC_aggressiveHeapThresholdInMB": "1048576",
	"JSC_largeHeapSize":               "16777216",
	"JSC_smallHeapGrowthFactor":       "1.5",
}

// setWebProcessEnv applies webProcessEnv before the window starts.
func setWebProcessEnv() {
	for k, v := range webProcessEnv {
		if _, set := os.LookupEnv(k); !set {
			os.Setenv(k, v)
		}
	}
}

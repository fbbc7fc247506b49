package desktop

import "os"

// webProcessEnv is the environment the page's process (WebKit's web
// process, started by the window and inheriting its environment) runs with
// unless the user set these variables:
//
//   - JSC_useDFGJIT=false: JavaScriptCore runs the page with its interpreter
//     and baseline compiler only. The optimising compilers pay off for long
//     computations; the page's work is short bursts of UI code, for which
//     they cost memory (about 20 MB with a 10,000-message conversation
//     open) and compile threads competing with the page on small machines,
//     with no gain measured in the frame times (e2e perf and markdown specs).
var webProcessEnv = map[string]string{
	"JSC_useDFGJIT": "false",
}

// setWebProcessEnv applies webProcessEnv before the window starts.
func setWebProcessEnv() {
	for k, v := range webProcessEnv {
		if _, set := os.LookupEnv(k); !set {
			os.Setenv(k, v)
		}
	}
}

package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/contextbuilder"
	"crewagent/backend/conversation"
	"crewagent/backend/llm/fakellm"
	"crewagent/backend/settings"
)

// agentsMD is the project instruction file of the long sessions.
const agentsMD = "# Project rules\n\n- Run `go test ./...` before saying a change is done.\n- The staging host is build-7.internal; never deploy on Fridays.\n- Keep answers short.\n"

// longSession drives turns of a session whose history ends several times
// over the limit: user messages of varying length (seeded), answers, and
// every third turn a write through fs.write before the answer. It returns
// the requests sent and, per turn, whether it compacted.
func longSession(t *testing.T, seed uint64, limit, turns int) (*fixture, string, []fakellm.RecordedRequest, []bool) {
	t.Helper()
	f := newFixture(t, func(s *settings.Settings) {
		smallBudget(limit)(s)
		if os.Getenv("NORECALL") != "" {
			s.Context.RecallShare = 0
		}
	})
	if err := os.WriteFile(filepath.Join(f.root, "AGENTS.md"), []byte(agentsMD), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed*7+1))
	words := func(n int, tag string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%s%d ", tag, rng.IntN(400))
		}
		return strings.TrimSpace(b.String())
	}
	turn := 0
	f.srv.SetDefault(func(r fakellm.RecordedRequest) fakellm.Response {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == conversation.RoleUser && turn%3 == 0 {
			args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("@project/notes/turn-%d.md", turn),
				"content": fmt.Sprintf("timeout_ms: %d\nowner: Team %d\n%s\n", 1000+turn, turn, words(20, "n"))})
			return fakellm.Tools(fakellm.ToolCall{Name: "fs_write", Arguments: string(args)})
		}
		return fakellm.Text(fmt.Sprintf("Answer to turn %d: %s", turn, words(20+rng.IntN(60), "a")))
	})
	var convID string
	var compacted []bool
	for turn = 0; turn < turns; turn++ {
		res := f.send(SendRequest{ConversationID: convID, Text: fmt.Sprintf("Turn %d: %s", turn, words(20+rng.IntN(120), "w"))})
		if res.Err != nil {
			t.Fatalf("turn %d: %v", turn, res.Err)
		}
		convID = res.ConversationID
		compacted = append(compacted, res.Context.Compressed)
	}
	return f, convID, f.srv.ChatRequests(), compacted
}

// prefixShare is the share of b's bytes that repeat a's prefix.
func prefixShare(a, b []byte) float64 {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if len(b) == 0 {
		return 1
	}
	return float64(n) / float64(len(b))
}

// serialised is a request as a provider's prefix cache sees it: the tool
// definitions, then the messages in order.
func serialised(r fakellm.RecordedRequest) []byte {
	out, _ := json.Marshal(r.Tools)
	for _, m := range r.Messages {
		b, _ := json.Marshal(m)
		out = append(out, b...)
	}
	return out
}

// A 200-turn session ten times over its limit, over several seeds: a
// compaction lands with room for the next turns (never two compactions in
// consecutive turns), each compaction appends a block to the summary and
// leaves the bytes before it as they were (or, rarely, consolidates), the
// project's AGENTS.md is in every request byte for byte, and most of each
// request repeats the previous request's prefix.
func TestLongSessionCompactsRarelyAndKeepsThePrefix(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	turns := 200
	if testing.Short() || raceEnabled {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			const limit = 6000
			f, convID, reqs, compacted := longSession(t, seed, limit, turns)
			n := 0
			for i, c := range compacted {
				if !c {
					continue
				}
				n++
				if i > 0 && compacted[i-1] {
					t.Errorf("turns %d and %d both compacted", i-1, i)
				}
			}
			evs := compactionEvents(f.load(convID))
			history := 0
			for _, e := range f.messages(convID) {
				history += counter.CountMessage(testModel, e)
			}
			if history < 8*limit {
				t.Fatalf("the history is %d tokens, %.1fx the limit: the session tests nothing", history, float64(history)/limit)
			}
			if n < 10 || len(evs) < n {
				t.Fatalf("%d turns compacted, %d compaction events: too few for the test to mean anything", n, len(evs))
			}
			var prevSummary string
			appended, consolidated := 0, 0
			var shares []float64
			var memory string
			for k, r := range reqs {
				summary, mem := "", ""
				for _, m := range r.Messages {
					switch {
					case m.Role == conversation.RoleSystem && strings.HasPrefix(m.Text(), contextbuilder.ConversationSummaryPrefix):
						summary = m.Text()
					case m.Role == conversation.RoleSystem && strings.HasPrefix(m.Text(), contextbuilder.MemoryPrefix):
						mem = m.Text()
					}
				}
				if !strings.Contains(mem, agentsMD[:len(agentsMD)-1]) {
					t.Fatalf("request %d lacks AGENTS.md:\n%s", k, mem)
				}
				if memory == "" {
					memory = mem
				} else if mem != memory {
					t.Fatalf("request %d: AGENTS.md is not byte for byte what the first request carried", k)
				}
				if summary != prevSummary && prevSummary != "" {
					if strings.HasPrefix(summary, prevSummary+"\n\n") {
						appended++
					} else {
						consolidated++
					}
				}
				prevSummary = summary
				if k > 0 {
					shares = append(shares, prefixShare(serialised(reqs[k-1]), serialised(r)))
				}
			}
			if appended == 0 || consolidated > appended {
				t.Errorf("summaries: %d appended a block, %d rewritten whole", appended, consolidated)
			}
			mean := 0.0
			for _, s := range shares {
				mean += s
			}
			mean /= float64(len(shares))
			t.Logf("history %.1fx the limit; %d of %d turns compacted (%d events); summary appended %d, consolidated %d; mean prefix reuse %.1f %% over %d requests",
				float64(history)/limit, n, turns, len(evs), appended, consolidated, mean*100, len(reqs))
			var low, mid, high int
			for _, s := range shares {
				switch {
				case s < 0.5:
					low++
				case s < 0.9:
					mid++
				default:
					high++
				}
			}
			t.Logf("pairs: %d below 50 %%, %d 50-90 %%, %d above 90 %%", low, mid, high)
			if mean < 0.85 {
				t.Errorf("mean prefix reuse %.1f %%, want at least 85 %% (recalled messages before each newest message cost a few points)", mean*100)
			}
			f.checkBudget(limit)
		})
	}
}

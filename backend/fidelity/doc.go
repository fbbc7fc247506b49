// Package fidelity measures what a long conversation keeps when its history
// is several times larger than the request budget, and how much of each
// request a provider's prompt cache can reuse.
//
// Generators. Deterministic (seeded) generators of long chat and agent
// conversations in English and Chinese: coding-agent sessions with tool
// loops (fs.read, fs.search, fs.list, fs.write and fs.apply_patch calls with
// realistic arguments and outputs), design chats, many tiny turns ("ok",
// "继续"), pasted logs. Each plants 20–27 facts spread over the whole
// conversation, said plainly, without marker words ("fwiw the dev server
// sits on port 6851", "Leocadia Voss from payments is reviewing this one"),
// of these kinds, each counted on its own:
//
//   - requirement, path, number, decision, name: in the user's asides or
//     (half of the decisions) the model's proposals;
//   - tool_output: a value only a tool's output shows (a config value, a
//     failing test, an error code, an owner);
//   - tool_args: a path or a value only in the arguments of a write or
//     patch the agent made (the artifact trail);
//   - finding: the model's own conclusion (a root cause, a measurement, a
//     rename), in its text;
//   - update: a value said early and corrected later.
//
// A fact is kept when all its needles (distinctive substrings: "6851",
// "Leocadia Voss", CJK names for Chinese) are in the request; every needle
// occurs only in its planting message(s), in the part its kind says (Check;
// a generation that breaks this is drawn again). A knowledge update is kept
// when its newest value is present and no stale value appears without the
// correction after (or beside) it. Each fact records its depth: the
// position of its message in the history, reported by thirds (oldest,
// middle, newest).
//
// Styles: heldout (the figures to report; do not tune against it) and tune
// (to develop against) are two voices with their own templates and
// vocabularies (a payments backend in Go with YAML and go test output; a
// mobile app and data pipeline in TypeScript and Python with TOML, .env and
// pytest output); their final message names nothing ("continue", "let's
// pick this up again: recap what we established that still matters, then
// finish", "继续", "接着上次的来：先回顾一下还有效的结论，然后做完"). The
// legacy styles a and b plant facts with marker words and end with a
// message that names the topics of three facts, which lexical recall brings
// back.
//
// Runner. Each conversation is driven turn by turn through the real engine
// — every user turn a ChatService.Send over a real conversation store, with
// the production context builder, compaction, recall and persistence, a
// scripted model and tool host — at the budgets where its history is 1.5x,
// 3x and 10x what fits. Variants:
//
//   - default: the default settings, the final message naming nothing;
//   - named: the same, the final message naming three facts' topics;
//   - digest: the digest without recall;
//   - hybrid: digest and recall fused with embeddings (the fake server's
//     deterministic /v1/embeddings model);
//   - newest: keep-newest truncation at the same budget (the newest
//     messages that fit, tool groups whole), computed on the same log.
//
// Facts are counted in the first request of the last turn, overall, per
// kind and per depth bucket (beside keep-newest). Over every request of a
// live run: protocol validity, budget adherence (counted independently with
// the tokenizer), the newest user message sent verbatim, and prefix reuse:
// for each pair of consecutive requests, the share of the later request's
// bytes (tools and messages as JSON) equal to the longest common prefix with
// the earlier one — what OpenAI's, DeepSeek's, vLLM's or llama.cpp's prefix
// caches can reuse — as a mean and a minimum over all pairs and over the
// pairs with a compaction between them; and compactions, with the turns
// that compacted right after a turn that did (thrashing), and among them
// those a single turn forced: the request grew more since the compaction
// before than the room between that compaction's target and the trigger.
//
// Run it with
//
//	go run ./cmd/fidelity [-style heldout|tune|a|b|all] [-conversations N] [-ratios 1.5,3,10] [-variants default,named,newest] [-v] [-json]
//
// which prints the held-out table by default (about a minute and a half on
// two cores), each budget closed by a verdict against the targets (facts
// kept 90 / 80 / 60 %, prefix reuse 90 %, no thrashing but what a single
// turn forced, every request valid,
// within budget and verbatim, no depth third below keep-newest), or with
//
//	go test -run '^$' -bench Fidelity -benchtime 1x ./backend/fidelity
//
// which reports the held-out figures as custom metrics.
package fidelity

// Package fidelity measures what a long conversation keeps when its history
// is several times larger than the request budget: a deterministic generator
// of long chat and agent conversations with planted key facts (user
// requirements, file paths, numbers, decisions, names, facts that only a
// tool's output shows; in English and Chinese, among filler that looks like
// real work), and a runner that drives each conversation through the real
// engine — every user turn is a ChatService.Send over a real conversation
// store, with the production context builder, compaction, recall and
// persistence — and checks the requests it sends.
//
// For each conversation and each budget (the history 1.5x, 3x and 10x what
// fits) it reports the share of planted facts present in the last request
// (whose user message refers back to early facts) for:
//
//   - default: the default settings (extractive digest, lexical recall);
//   - digest: the digest without recall;
//   - hybrid: digest and recall fused with embeddings (the fake server's
//     deterministic /v1/embeddings model);
//   - newest: keep-newest truncation at the same budget (the newest
//     messages that fit, tool groups whole), computed on the same log;
//
// plus, for the engine's runs, protocol validity of every request, budget
// adherence of every request (tool loops included, counted independently
// with the tokenizer) and whether the newest user message is sent verbatim.
//
// Run it with
//
//	go test -run '^$' -bench Fidelity -benchtime 1x ./backend/fidelity
//
// (the percentages are reported as custom metrics), or with
//
//	go run ./cmd/fidelity [-conversations N] [-ratios 1.5,3,10] [-v]
//
// which prints a table.
package fidelity

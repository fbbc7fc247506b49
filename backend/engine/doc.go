// Package engine owns the conversation tool loop of chat, agent and run modes:
// persisting every turn, building and compacting the context, streaming, tools.
//
// # One send
//
// ChatService.Send runs one user turn:
//
//  1. a message that can never fit the request limit (with the system prompt
//     and the tool definitions) is refused with ENGINE_INPUT_TOO_LARGE before
//     anything is written; otherwise the user message is appended to the log
//     (tagged with mode and agentId) before anything else, so it survives
//     every later failure;
//  2. the history is read from the end of the log back to the last
//     compaction event and on to the oldest entry the request still needs
//     (the event's keptFrom): the summary and the uncompacted tail, so the
//     cost follows the tail, not the log;
//  3. before every LLM call the request is built (see Context below);
//  4. the tool loop runs up to settings engine.maxTurns LLM calls. Each
//     assistant message with tool calls is persisted as soon as the stream
//     completes, each tool result as soon as the tool returns, and joins the
//     history the next request of the loop is built from;
//  5. the final answer is persisted with partType "content".
//
// Any failure (LLM error, timeout, stall, cancellation, too many turns, the
// same failing tool call made three times: ENGINE_LOOP_DETECTED, a request
// that cannot fit: CONTEXT_STILL_TOO_LARGE) is persisted as an assistant
// message with partType "error": the partial text streamed so far, then a
// block starting with LLM_ERROR. The context builder sends that message with
// the next request, so "continue" resumes from it. A ui.ask_user call ends
// the loop once the calls of its message have run: the user's answer is the
// next message.
//
// # Context
//
// Build, compact, build — never truncate first. The context builder builds
// the request with every history unit whole. When that is over the trigger
// (context.triggerThreshold of the request limit, or a message/character
// cap), compression plans the oldest units before the newest user message
// (never that message or the turn in progress), writes the summary that
// replaces them (the extractive digest, or the LLM summary with the digest as
// its fallback), and the compaction is persisted in one write: compacted
// marks, the "compaction" event (conversation.CompactionData: range, strategy,
// tokens before and after, keptFrom, carried pins and records, earlier
// compactions, reason threshold | in-loop | context-length | manual), the
// CONVERSATION_SUMMARY message; the compacted messages go to the recall index
// beside the log. The request is built again from the summary and the tail:
// its prefix (system prompt, summary, PINNED) does not change until the next
// compaction or pin, so providers' prompt caches keep working.
//
// Still over the limit (the turn in progress is too large), the tool results
// the builder will shorten first get their full output saved under
// @state/logs/tool-results, then the builder's safety net turns results into
// previews that point there. A request that still cannot fit is not sent:
// the turn ends with CONTEXT_STILL_TOO_LARGE. Then recall: the compacted
// messages relevant to the newest user message (BM25 over words and CJK
// character pairs, fused with embeddings when llm.embeddingsModel is set)
// are quoted in a RECALLED_CONTEXT message before it, within
// context.recallShare of the limit.
//
// A context-length error from the provider before any output lowers the
// request limit — in proportion to the figures it reported, or by a quarter
// — remembers it for the model, builds the request again (compacting as
// needed) and retries once; a request that would not be smaller is not sent.
//
// Stored token counts are trusted when they were made with the request
// model's encoding and are plausible for the entry's size; other entries are
// counted again, once (a cache per ChatService).
//
// ChatService.Compact compacts on demand (everything before the newest user
// message, with a focus that steers the summary); Pin and Unpin record pins;
// Preview shows the next request, doing in memory the compaction a send
// would persist, and explains the whole conversation from the compaction
// events (every message only with PreviewRequest.Full, which reads the log).
//
// # Run turns
//
// ChatService.RunTurn runs the same loop for a workflow run (mode run): the
// user message is the run's prepared input (or none), every entry is tagged
// with the run and workflow ids, the request is built before each LLM call
// from a setup the run supplies (persona, run blocks and tool host of the
// node it is at, which a tool call may just have changed), and a stop is
// recorded as ENGINE_ABORTED. Without an input the turn's own entries are
// its current turn: the run blocks go before them and compaction leaves them.
//
// # Events
//
// context:usage before each request and around compaction; llm:stream-start,
// -chunk (coalesced), -end, -tool-start (when the model announces a call) and
// -tool-end (when the tool has run, or the call was abandoned), each with the
// conversation and message ids. Changes of the log are announced by the store
// the service is given (convlog.Publishing), not by the engine.
package engine

// Package engine owns the conversation tool loop of chat, agent and run modes:
// persisting every turn, building and compressing the context, streaming, tools.
//
// # One send
//
// ChatService.Send runs one user turn:
//
//  1. the user message is appended to the log (tagged with mode and agentId)
//     before anything else, so it survives every later failure;
//  2. the history is read from the end of the log, in windows that double,
//     only as far as the request can use: up to the last compaction event
//     (extended back to the oldest message that compaction kept, its
//     "keptFrom"), or up to the first window whose request the context builder
//     reports older entries cannot change (with the llm-summary strategy, or
//     when the log holds a summary-class message, which the builder keeps
//     wherever it lies, always up to that event); the request is the one the
//     whole history would give;
//  3. contextbuilder builds the request (system prompt for the mode, persona in
//     agent mode only, the tool policy of the tool host, tool results of
//     earlier turns as stubs when context.includeToolResultsInContext is off);
//  4. when the request uses more than the trigger threshold of the budget, the
//     compression pipeline reduces it and the outcome is persisted: compacted
//     marks and a "compaction" event (strategy, range, tokens before/after,
//     keptFrom), then the summary message of the LLM summary strategy;
//  5. the tool loop runs up to settings engine.maxTurns LLM calls. Before each
//     call after the first, the history part of the request (the messages
//     before the loop started) is compressed when over the threshold. Each
//     assistant message with tool calls is persisted as soon as the stream
//     completes, each tool result as soon as the tool returns;
//  6. the final answer is persisted with partType "content".
//
// Any failure (LLM error, timeout, stall, cancellation, too many turns, the
// same failing tool call made three times: ENGINE_LOOP_DETECTED) is persisted
// as an assistant message with partType "error": the partial text streamed so
// far, then a block starting with LLM_ERROR. The context builder sends that
// message with the next request, so "continue" resumes from it. A
// context-length error from the server forces one compression and one retry
// of the call. A ui.ask_user call ends the loop once the calls of its message
// have run: the user's answer is the next message.
//
// # Run turns
//
// ChatService.RunTurn runs the same loop for a workflow run (mode run): the
// user message is the run's prepared input (or none), every entry is tagged
// with the run and workflow ids, the request is rebuilt before each LLM call
// from a setup the run supplies (persona, run blocks and tool host of the
// node it is at, which a tool call may just have changed), and a stop is
// recorded as ENGINE_ABORTED.
//
// # Events
//
// context:usage before each request and around compression; llm:stream-start,
// -chunk (coalesced), -end, -tool-start (when the model announces a call) and
// -tool-end (when the tool has run, or the call was abandoned), each with the
// conversation and message ids. Changes of the log are announced by the store
// the service is given (convlog.Publishing), not by the engine.
package engine

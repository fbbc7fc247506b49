// Package fakellm owns a scriptable fake OpenAI-compatible server (chat completions, streamed
// and not, /v1/models, and /v1/embeddings with a deterministic bag-of-words model: Embedding)
// used by every LLM test and by the fakellm command.
//
// # Scripting
//
// A Server answers each POST /v1/chat/completions with the next Response of its queue
// (Enqueue); when the queue is empty it asks its default responder (SetDefault), and without
// one it echoes the last message. Every request is recorded, decoded, for assertions
// (Requests). A Response describes one answer: streamed text split into chunks, tool calls
// whose arguments are split across chunks, usage, an HTTP error with body and headers, a
// delay before the headers, a stall after some chunks, a connection cut mid-stream, a stream
// without [DONE], raw body pieces written verbatim, or a non-streamed JSON answer (sent
// whenever the request asks for no stream, or always with JSON set).
//
// A streamed answer is this sequence of SSE data events, counted from 0 by StallAfter and
// CutAfter: one role event ({"role":"assistant","content":""}), one event per reasoning
// chunk, one per text chunk, for each tool call one event with id and name then one per
// argument chunk, one event with the finish reason, one usage-only event (when the request
// set stream_options.include_usage and OmitUsage is false), then "data: [DONE]" (unless
// OmitDone).
//
// By default the server is strict like the OpenAI API: tool function names must match
// ^[a-zA-Z0-9_-]{1,64}$, an assistant message with tool_calls must be followed by one tool
// message per call id, a tool message must answer a pending call id, and user, system,
// developer and tool messages need a content. A request that breaks one of these rules gets
// the 400 invalid_request_error the real API would send. SetStrict(false) turns this off.
//
// Like strict OpenAI-compatible servers, it can refuse request fields it does not know
// (RefuseFields: "prompt_cache_key", "stream_options"; a 400 "Unrecognized request argument
// supplied: NAME" or a 422 naming the field) and tool schema keywords the way Gemini does
// (RefuseSchemaKeywords: "$schema", "additionalProperties": a 400 "Unknown name ..."). It
// records the cached prefix of every accepted request — the estimated prompt tokens it
// shares with the request accepted before it: whole equal messages, then the common start
// of the first one that differs, nothing when the tools changed — and with SetCacheReport
// (or a response's cache field) reports it in the usage in OpenAI's shape
// (prompt_tokens_details.cached_tokens) or DeepSeek's (prompt_cache_hit_tokens and
// prompt_cache_miss_tokens).
//
// GET /_fakellm/requests returns the recorded requests as JSON (without headers), for
// end-to-end tests that drive the server from another process.
//
// # Script files
//
// Rules (used by the fakellm command's -script flag, parsed by ParseScript) are a JSON list;
// the first rule that matches a request answers it, and a request no rule matches is echoed:
//
//	[
//	  {"match": "use a tool", "response": {"tool_calls": [
//	      {"name": "fs.list", "arguments": "{\"path\":\"@project\"}", "arg_chunks": 3}]}},
//	  {"match": "*", "on_tool_result": true, "response": {"text": "The tool said: ", "echo": true}},
//	  {"match": "fail once", "times": 1, "response": {"status": 500}},
//	  {"match": "fail", "response": {"text": "partial answer", "chunks": 4, "cut": true, "cut_after": 3}},
//	  {"match": "slow", "response": {"text": "slow answer", "chunks": 5, "chunk_delay_ms": 200}},
//	  {"match": "long", "response": {"text": "A long line of text. ", "repeat": 400, "chunks": 200}},
//	  {"match": "*", "response": {"text": "You said: ", "echo": true}}
//	]
//
// Rule fields:
//   - match: a case-insensitive substring of the last user message; "*" or "" matches any.
//   - on_tool_result: when true the rule applies only to requests whose last message is a
//     tool result; when false (the default) only to requests whose last message is not.
//   - times: how many requests the rule may answer (0: no limit).
//   - response: the Response, below.
//
// Response fields (all optional):
//   - text, repeat (text repeated this many times), echo (append the content of the request's
//     last message to text), reasoning (streamed as reasoning_content before the text;
//     reasoning_field "reasoning" sends it as "reasoning" instead),
//     chunks (how many chunks the text is split into; default one per 16 characters),
//     chunk_delay_ms (pause before each chunk after the first).
//   - tool_calls: [{"id", "name", "arguments", "arg_chunks"}]; a name is sent the way the
//     request declared it (a "fs.list" rule answers a request that declared "fs_list" with
//     "fs_list"); missing ids become "call_<request>_<index>". interleave: send the argument
//     chunks of parallel calls alternately. call_ids: "same" streams every call with the
//     first call's id, "empty" with none; one_index: every call at index 0.
//   - finish_reason (default "stop", or "tool_calls" when there are tool calls), usage
//     ({"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details":
//     {"cached_tokens"}, "prompt_cache_hit_tokens", "prompt_cache_miss_tokens"}; default:
//     an estimate of one token per 4 bytes), cache ("openai" or "deepseek": the estimate
//     reports the cached prefix in that shape), omit_usage, omit_done.
//   - status, body, headers: an HTTP error (status >= 400; body defaults to an OpenAI error
//     JSON for that status); headers are sent with any answer (e.g. {"Retry-After": "1"}).
//   - delay_ms: wait before sending anything. stall_after + stall_ms: after that many events
//     wait stall_ms (-1: until the client goes away or the server closes), then go on.
//   - cut + cut_after: close the connection after cut_after events, mid-stream.
//   - fault + cut_after: break a streamed answer off after cut_after events the way real
//     servers do: "abort" (as cut: the connection is reset without the chunked terminator),
//     "close" (the server takes over the TCP connection, sends a body delimited by the
//     connection and closes it: a clean end of body without finish_reason or [DONE]),
//     "end" (the response ends normally, without finish_reason or [DONE]) or "chunk_cut"
//     (chunked encoding written by hand, the connection closed inside a chunk).
//   - raw: body pieces written verbatim, flushed one by one with chunk_delay_ms between them
//     (content_type defaults to text/event-stream for streamed requests).
//   - json: answer with a non-streamed chat.completion JSON even when streaming was asked.
package fakellm

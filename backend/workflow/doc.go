// Package workflow owns workflow runs (Run mode): creating runs, their turns with the
// RUN_DIRECTIVE/NODE_BRIEF injection, the state-write guard, runsIndex.json and progress.
//
// # Files
//
// Per project data dir: runsIndex.json (one row per run: phase, current node, steps,
// artifacts, conversation, workflow, package, timestamps, last error) and
// runs/<runId>/state/ with workflow.md (the run state, @state/workflow.md for the model)
// and logs/execution.jsonl (every tool call, plus run_created, turn_start, turn_end,
// artifact_recorded and artifact_rollback lines written here). runsIndex.json and the state
// file are written atomically. The state file is the source of truth for progress; the
// index mirrors it.
//
// # Turns
//
// A run talks in a conversation of the shared log: every message it produces carries mode
// "run", runId, workflowId and agentId. A turn appends the user's input as
// "USER_INPUT\n- forNodeId: <node>\n<text>" and runs the tool loop of chat and agent modes
// (engine.ChatService.RunTurn, see Loop) on it: before each model request the state file is
// read again, so the persona (node.agentId, else the run's active agent), the run blocks and
// the tool host always match the node the run is at, and the request is rebuilt for them.
// The blocks are user-role messages placed by the context builder, never part of the system
// prompt: RUN_DIRECTIVE and NODE_BRIEF while a step is active; only a RUN_DIRECTIVE with the
// post-run protocol once the workflow is complete. Streaming, compression and the stream,
// context and conversation events are the engine's.
//
// The intent of a turn is start (no progress and no earlier answer), resume (the first turn
// of this process, or after a failed or interrupted turn) or continue. Nothing else is kept
// in memory between turns: after a restart a run resumes from its state file, its graph and
// the conversation log alone (pending ui.ask_user widgets and the user's confirmations are
// read back from the log).
//
// # Phases
//
// idle after CreateRun; running during a turn; then, from the state the turn left:
//
//   - completed when the workflow is complete (variables.workflowStatus == "complete", or
//     the current node is an end node listed in stepsCompleted) — whatever else happened,
//     so a completed run stays completed while the user keeps talking after it;
//   - waiting-user when the model answered without tool calls, asked with ui.ask_user, hit
//     engine.maxTurns (ENGINE_MAX_TURNS_EXCEEDED) or was stopped (ENGINE_ABORTED): the
//     user's next message continues;
//   - failed when the model call failed (LLM_*), the same failing call was made three times
//     (ENGINE_LOOP_DETECTED) or the turn could not be prepared; "run continue" resumes it.
//
// Every failure is persisted in the conversation like a chat failure (an assistant message
// with partType "error" and an LLM_ERROR block) and kept as the row's lastError.
//
// # Guard and artifacts
//
// Guard checks every write of the model to @state/workflow.md. A new file under the
// project's artifacts folder is appended to the state's artifacts[] by the runtime; if that
// fails the file is removed and the write fails. After completion, a change to the state
// needs the user's "yes" to a ui.ask_user confirmation, which allows exactly one write; the
// runtime's own bookkeeping (recording artifacts) is not subject to it.
package workflow

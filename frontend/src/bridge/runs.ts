import * as Runs from '../../wailsjs/go/desktop/Runs'
import type { events, tools, workflow } from '../../wailsjs/go/models'
import { call } from './errors'

export type Run = workflow.Run
export type RunStatus = workflow.RunStatus
export type NodeProgress = events.NodeProgress
export type RunPhase = 'idle' | 'running' | 'waiting-user' | 'completed' | 'failed'
export type NodeStatus = 'completed' | 'current' | 'pending'
export type Widget = tools.Widget
export type WidgetAnswer = tools.WidgetAnswer
export type WidgetOption = tools.WidgetOption
export type WidgetField = tools.WidgetField
export type RunLogView = workflow.RunLogView
export type ExecLogLine = workflow.ExecLogLine
export type ArtifactView = tools.FileView

export interface StartRunRequest {
  /** The conversation the run talks in ("" for a new one). */
  conversationId: string
  workflowId: string
  /** The run's active agent ("" for the entry node's agent). */
  agentId?: string
  /** The first message (optional). */
  message?: string
}

/** The answer a user message carries (its "widget" field) when it answers a
 * ui.ask_user widget (backend/workflow WidgetAnswerRecord). */
export interface WidgetAnswerRecord {
  widgetId: string
  type: string
  answer: WidgetAnswer
}

/** Workflow runs: start, answer a question, progress, the execution log and
 * the artifacts. Turns stream through the same events as chat replies;
 * messages to a run go through chat.send in mode "run". */
export interface RunsApi {
  start(req: StartRunRequest): Promise<Run>
  answerWidget(runId: string, widgetId: string, answer: WidgetAnswer): Promise<void>
  /** The latest run of a conversation; null when it has none. */
  conversationRun(conversationId: string): Promise<RunStatus | null>
  status(runId: string): Promise<RunStatus>
  list(): Promise<Run[]>
  /** The last `limit` lines of the run's execution.jsonl. */
  log(runId: string, limit?: number): Promise<RunLogView>
  /** A project file by its project-relative path, read-only. */
  readArtifact(path: string): Promise<ArtifactView>
}

export function createWailsRuns(): RunsApi {
  return {
    start: (req) => call(() => Runs.Start({ conversationId: req.conversationId, workflowId: req.workflowId, agentId: req.agentId ?? '', message: req.message ?? '' })),
    answerWidget: (runId, widgetId, answer) => call(() => Runs.AnswerQuestion(runId, widgetId, answer)),
    conversationRun: (id) => call(async () => (await Runs.ConversationRun(id)) ?? null),
    status: (runId) => call(() => Runs.Status(runId)),
    list: () => call(async () => (await Runs.List()) ?? []),
    log: (runId, limit = 0) => call(() => Runs.Log(runId, limit)),
    readArtifact: (path) => call(() => Runs.ReadArtifact(path)),
  }
}

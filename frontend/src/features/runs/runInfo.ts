import type { ActivePackageView, ExecLogLine, NodeProgress, RunStatus } from '../../bridge'
import { argsPreview } from '../../lib/format'

/** The display name of a run's workflow (its id when the package does not list it). */
export function workflowTitle(active: ActivePackageView | null, workflowId: string): string {
  return active?.workflows.find((w) => w.id === workflowId)?.displayName || workflowId
}

/** The node the run is at: the current one, else (complete) none. */
export function currentNode(run: RunStatus): NodeProgress | undefined {
  return run.nodes?.find((n) => n.status === 'current')
}

/** The display name of an agent of the active package. */
export function agentName(active: ActivePackageView | null, agentId?: string): string {
  if (!agentId) return ''
  const a = active?.agents.find((x) => x.id === agentId)
  return a ? `${a.icon ? `${a.icon} ` : ''}${a.name}` : agentId
}

/** How many nodes are done, out of how many. */
export function nodeCounts(run: RunStatus): { done: number; total: number } {
  const nodes = run.nodes ?? []
  return { done: nodes.filter((n) => n.status === 'completed').length, total: nodes.length }
}

/** "12:03:04" from an RFC 3339 time (the text itself when it is not one). */
export function clock(ts: string): string {
  const d = new Date(ts)
  return Number.isNaN(d.getTime()) ? ts : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })
}

/** The tool calls of an execution log, oldest first. */
export function toolCalls(lines: ExecLogLine[]): ExecLogLine[] {
  return lines.filter((l) => l.type === 'tool_call')
}

/** What a tool call was about, in a few words: the path it touched (and the
 * patch operation), the question it asked, or its arguments. */
export function callSummary(tool: string, args: string): string {
  let v: Record<string, unknown> | null = null
  try {
    const parsed = JSON.parse(args)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) v = parsed as Record<string, unknown>
  } catch {
    // not JSON (cut by the log): shown as it is
  }
  if (!v) return argsPreview(args, 80)
  if (tool === 'ui.ask_user' && typeof v.prompt === 'string') return v.prompt
  if (typeof v.path === 'string') {
    const update = v.update && typeof v.update === 'object' ? Object.keys(v.update as object).join(', ') : ''
    return update ? `${v.path} (${update})` : v.path
  }
  return argsPreview(args, 80)
}

/** One line of the execution log in words. */
export function describeLogLine(l: ExecLogLine): string {
  if (!l.type) return l.raw
  if (l.type === 'tool_call') {
    const result = l.ok === false ? `failed ${l.code ?? ''}`.trim() : 'ok'
    return `${l.tool ?? 'tool'} ${callSummary(l.tool ?? '', l.args ?? '')} → ${result}`
  }
  let rest: Record<string, unknown>
  try {
    rest = JSON.parse(l.raw) as Record<string, unknown>
  } catch {
    return l.raw
  }
  return Object.entries(rest)
    .filter(([k]) => k !== 'ts' && k !== 'type')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')
}

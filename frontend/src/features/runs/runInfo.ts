import type { ActivePackageView, NodeProgress, RunStatus } from '../../bridge'
import { locale, t } from '../../i18n'

/** The display name of a run's workflow (its id when the package does not list it). */
export function workflowTitle(active: ActivePackageView | null, workflowId: string): string {
  return active?.workflows.find((w) => w.id === workflowId)?.displayName || workflowId
}

/** The node the run is at: the current one, else (complete) none. */
export function currentNode(run: RunStatus): NodeProgress | undefined {
  return run.nodes?.find((n) => n.status === 'current')
}

/** A node's title; a graph without titles gets its id in words
 * ("clarify-idea" → "Clarify idea"). */
export function nodeTitle(n: Pick<NodeProgress, 'id' | 'title'>): string {
  if (n.title) return n.title
  const words = n.id.replace(/[-_.]+/g, ' ').trim()
  return words ? words[0].toUpperCase() + words.slice(1) : t('run.untitled')
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
  return Number.isNaN(d.getTime()) ? ts : d.toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })
}

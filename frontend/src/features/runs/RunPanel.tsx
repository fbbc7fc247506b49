import { useEffect, useRef } from 'react'
import { useStore, useStores } from '../../stores'
import { formatDuration } from '../../lib/format'
import { PhaseBadge } from './PhaseBadge'
import { agentName, callSummary, clock, describeLogLine, nodeCounts, toolCalls, workflowTitle } from './runInfo'
import { count } from '../../lib/count'
import './runs.css'

const nodeMark: Record<string, string> = { completed: '✓', current: '●', pending: '○' }

/** The run side panel of a conversation with a workflow run: the graph's
 * nodes (completed / current / pending), the question waiting for the user,
 * the artifacts (click to read), the run's tool calls and its execution log.
 * It follows runs:progressUpdated live and can be collapsed. */
export function RunPanel() {
  const { runs, packages } = useStores()
  const run = useStore(runs, (s) => s.run)
  const log = useStore(runs, (s) => s.log)
  const open = useStore(runs, (s) => s.panelOpen)
  const artifactLoading = useStore(runs, (s) => s.artifactLoading)
  const active = useStore(packages, (s) => s.active)
  const logRef = useRef<HTMLUListElement>(null)
  const logLength = log?.lines.length ?? 0
  // The log follows its newest line.
  useEffect(() => {
    const el = logRef.current
    if (el) el.scrollTop = el.scrollHeight
  }, [logLength, open])
  if (!run) return null

  if (!open) {
    return (
      <aside className="run-panel is-collapsed" data-testid="run-panel" data-open="false" data-phase={run.phase}>
        <button type="button" className="run-panel-tab" onClick={() => runs.actions.setPanelOpen(true)} title="Show the run panel" data-testid="run-panel-expand">
          <span aria-hidden="true">‹</span>
          <span className="run-panel-tab-text">Run</span>
        </button>
      </aside>
    )
  }

  const nodes = run.nodes ?? []
  const counts = nodeCounts(run)
  const lines = log?.lines ?? []
  const calls = toolCalls(lines)
  const artifacts = run.artifacts ?? []

  return (
    <aside className="run-panel" data-testid="run-panel" data-open="true" data-phase={run.phase} aria-label="Workflow run">
      <header className="run-panel-head">
        <strong>Run</strong>
        <PhaseBadge phase={run.phase} testId="run-panel-phase" />
        <span className="spacer" />
        <button type="button" className="btn btn-ghost btn-small" onClick={() => runs.actions.setPanelOpen(false)} aria-label="Hide the run panel" data-testid="run-panel-collapse">
          ›
        </button>
      </header>
      <div className="run-panel-body">
        <div className="run-panel-title">
          <div className="run-panel-workflow" data-testid="run-panel-workflow">
            {workflowTitle(active, run.workflowId)}
          </div>
          <div className="hint" data-testid="run-panel-count">
            {run.complete ? `Complete: ${count(counts.done, 'step')} done` : `${counts.done} of ${counts.total} steps done`}
            {run.effectiveAgentId && !run.complete ? ` · ${agentName(active, run.effectiveAgentId)}` : ''}
          </div>
        </div>
        {run.lastError && run.phase !== 'completed' && (
          <div className="run-panel-error" data-testid="run-panel-error">
            <strong className="mono">{run.lastError.code}</strong> {run.lastError.message}
          </div>
        )}

        <section className="run-section">
          <h4>Progress</h4>
          <ol className="run-nodes" data-testid="run-nodes">
            {nodes.map((n) => {
              // Once the run is complete, a node still pending was not on the path taken.
              const skipped = run.complete && n.status === 'pending'
              return (
                <li key={n.id} className={`run-node is-${n.status} ${skipped ? 'is-skipped' : ''}`} data-testid="run-node" data-node={n.id} data-status={n.status}>
                  <span className="run-node-mark" aria-hidden="true">
                    {skipped ? '–' : (nodeMark[n.status] ?? '○')}
                  </span>
                  <span className="run-node-title">{n.title || n.id}</span>
                  {skipped ? <span className="run-node-type">not taken</span> : n.type !== 'step' && <span className="run-node-type">{n.type}</span>}
                  <span className="sr-only">{skipped ? 'not taken' : n.status}</span>
                </li>
              )
            })}
          </ol>
        </section>

        {run.pendingWidget && (
          <section className="run-section run-question" data-testid="run-question">
            <h4>Waiting for your answer</h4>
            <p>{run.pendingWidget.prompt}</p>
            <p className="hint">Answer it in the conversation.</p>
          </section>
        )}

        <section className="run-section">
          <h4>Artifacts {artifacts.length > 0 && <span className="count">{artifacts.length}</span>}</h4>
          {artifacts.length === 0 ? (
            <p className="hint">None yet.</p>
          ) : (
            <ul className="run-artifacts">
              {artifacts.map((a) => (
                <li key={a}>
                  <button type="button" className="run-artifact mono" onClick={() => void runs.actions.openArtifact(a)} disabled={artifactLoading === a} title={`Open ${a} (read-only)`} data-testid="run-artifact" data-path={a}>
                    {a}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>

        <details className="run-section" open>
          <summary>
            <h4>Tool calls</h4> <span className="count">{calls.length}</span>
          </summary>
          {calls.length === 0 ? (
            <p className="hint">No tool calls yet.</p>
          ) : (
            <ul className="run-calls" data-testid="run-tool-calls">
              {calls.map((l, i) => (
                <li key={`${l.ts}-${i}`} className={`run-call ${l.ok === false ? 'is-error' : ''}`} data-testid="run-tool-call" data-tool={l.tool} data-ok={l.ok !== false} title={l.args}>
                  <span className={`tool-dot ${l.ok === false ? 'dot-error' : 'dot-ok'}`} aria-hidden="true" />
                  <span className="mono run-call-name">{l.tool}</span>
                  <span className="run-call-args">{callSummary(l.tool ?? '', l.args ?? '')}</span>
                  <span className="run-call-status">{l.ok === false ? l.code || 'failed' : formatDuration(l.durationMs)}</span>
                </li>
              ))}
            </ul>
          )}
        </details>

        <details className="run-section">
          <summary>
            <h4>Log</h4> <span className="count">{lines.length}</span>
          </summary>
          {log?.truncated && <p className="hint">Older lines are in runs/{run.runId}/state/logs/execution.jsonl.</p>}
          <ul className="run-log mono" data-testid="run-log" ref={logRef}>
            {lines.map((l, i) => (
              <li key={`${l.ts}-${i}`} data-testid="run-log-line" data-type={l.type}>
                <span className="run-log-time">{clock(l.ts)}</span> <span className="run-log-type">{l.type || '?'}</span> <span className="run-log-text">{describeLogLine(l)}</span>
              </li>
            ))}
          </ul>
        </details>
        <p className="hint mono run-id" title="Run id">
          {run.runId}
        </p>
      </div>
    </aside>
  )
}

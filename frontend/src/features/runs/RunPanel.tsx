import { useEffect, useState } from 'react'
import { useStore, useStores } from '../../stores'
import { clock, nodeCounts, nodeTitle, workflowTitle } from './runInfo'
import './runs.css'
import { useTranslation } from '../../i18n'
import { backendText, saidText, sentence } from '../../i18n/backend'

const nodeMark: Record<string, string> = { completed: '✓', current: '●', pending: '○' }

/** Below this window width the panel does not sit beside the conversation
 * (which it would squeeze): it is a tab at the edge that opens over it. */
export const dockedMinWidth = 1280
const narrowQuery = `(max-width: ${dockedMinWidth - 1}px)`

/** Whether the window is narrower than the docked panel needs. */
export function useNarrowWindow(): boolean {
  const get = () => typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(narrowQuery).matches
  const [narrow, setNarrow] = useState(get)
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return
    const mq = window.matchMedia(narrowQuery)
    const on = () => setNarrow(mq.matches)
    on()
    mq.addEventListener('change', on)
    return () => mq.removeEventListener('change', on)
  }, [])
  return narrow
}

/** The run side panel of a conversation with a workflow run: the graph's
 * nodes (completed / current / pending), the artifacts (click to read) and,
 * folded, what the run did in words (its execution log). The phase is the
 * run bar's, above the conversation; the question waiting for an answer and
 * the tool calls of each step are in the conversation. In a wide window it
 * sits beside the conversation and can be collapsed; in a narrow one it is
 * a tab that opens over the conversation. It follows runs:progressUpdated
 * live. */
export function RunPanel() {
  const { t } = useTranslation()
  const { runs, packages } = useStores()
  const run = useStore(runs, (s) => s.run)
  const log = useStore(runs, (s) => s.log)
  const docked = useStore(runs, (s) => s.panelOpen)
  const artifactLoading = useStore(runs, (s) => s.artifactLoading)
  const active = useStore(packages, (s) => s.active)
  const narrow = useNarrowWindow()
  const [overlay, setOverlay] = useState(false)
  // A narrow window starts with the panel folded away; widening docks it again.
  useEffect(() => setOverlay(false), [narrow, run?.runId])
  useEffect(() => {
    if (!overlay) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOverlay(false)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [overlay])
  if (!run) return null

  const open = narrow ? overlay : docked
  const setOpen = (o: boolean) => (narrow ? setOverlay(o) : runs.actions.setPanelOpen(o))
  const mode = narrow ? 'overlay' : 'docked'

  if (!open) {
    return (
      <aside className={`run-panel is-collapsed is-${mode}`} data-testid="run-panel" data-open="false" data-mode={mode} data-phase={run.phase}>
        <button type="button" className="run-panel-tab" onClick={() => setOpen(true)} title={t('runPanel.showTitle')} data-testid="run-panel-expand">
          <span aria-hidden="true">‹</span>
          <span className="run-panel-tab-text">{t('runPanel.tab')}</span>
        </button>
      </aside>
    )
  }

  const nodes = run.nodes ?? []
  const counts = nodeCounts(run)
  const lines = log?.lines ?? []
  const artifacts = run.artifacts ?? []

  const panel = (
    <aside className={`run-panel is-${mode}`} data-testid="run-panel" data-open="true" data-mode={mode} data-phase={run.phase} aria-label={t('runPanel.label')}>
      <header className="run-panel-head">
        <div className="run-panel-title">
          <div className="run-panel-workflow" data-testid="run-panel-workflow" title={t('runPanel.runTitle', { workflow: workflowTitle(active, run.workflowId), id: run.runId })}>
            {t('runPanel.progress')}
          </div>
          <div className="hint" data-testid="run-panel-count">
            {run.complete ? t('runPanel.complete', { count: counts.done }) : t('runPanel.done', { done: counts.done, total: counts.total })}
          </div>
        </div>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => setOpen(false)} aria-label={t('runPanel.hide')} title={t('runPanel.hideShort')} data-testid="run-panel-collapse">
          ›
        </button>
      </header>
      <div className="run-panel-body">
        {run.lastError && run.phase !== 'completed' && (
          <div className="run-panel-error" data-testid="run-panel-error" title={run.lastError.code}>
            {t('runPanel.lastFailed', { message: backendText(run.lastError) })}
          </div>
        )}

        <section className="run-section">
          <ol className="run-nodes" data-testid="run-nodes" aria-label={t('runPanel.steps')}>
            {nodes.map((n) => {
              // Once the run is complete, a node still pending was not on the path taken.
              const skipped = run.complete && n.status === 'pending'
              return (
                <li key={n.id} className={`run-node is-${n.status} ${skipped ? 'is-skipped' : ''}`} data-testid="run-node" data-node={n.id} data-status={n.status}>
                  <span className="run-node-mark" aria-hidden="true">
                    {skipped ? '–' : (nodeMark[n.status] ?? '○')}
                  </span>
                  <span className="run-node-title">{nodeTitle(n)}</span>
                  {skipped ? <span className="run-node-type">{t('runPanel.notTaken')}</span> : n.type !== 'step' && <span className="run-node-type">{n.type}</span>}
                  <span className="sr-only">{skipped ? t('runPanel.notTaken') : t(`runPanel.status.${n.status}`, { defaultValue: n.status })}</span>
                </li>
              )
            })}
          </ol>
        </section>

        <section className="run-section">
          <h4>{t('runPanel.files')} {artifacts.length > 0 && <span className="count">{artifacts.length}</span>}</h4>
          {artifacts.length === 0 ? (
            <p className="hint">{t('insp.noneYet')}</p>
          ) : (
            <ul className="run-artifacts">
              {artifacts.map((a) => (
                <li key={a}>
                  <button type="button" className="run-artifact" onClick={() => void runs.actions.openArtifact(a)} disabled={artifactLoading === a} title={t('runPanel.openFile', { path: a })} data-testid="run-artifact" data-path={a}>
                    <span className="run-artifact-name">{a.split('/').pop()}</span>
                    {a.includes('/') && <span className="run-artifact-dir">{a.slice(0, a.lastIndexOf('/'))}</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>

        <details className="run-section run-activity">
          <summary>
            <h4>{t('runPanel.activity')}</h4> <span className="count">{lines.length}</span>
          </summary>
          {log?.truncated && <p className="hint">{t('runPanel.older')}</p>}
          <ul className="run-log" data-testid="run-log">
            {lines.map((l, i) => (
              <li key={`${l.ts}-${i}`} data-testid="run-log-line" data-type={l.type} data-ok={l.ok !== false} className={l.ok === false ? 'is-error' : ''} title={l.raw}>
                <span className="run-log-time">{clock(l.ts)}</span> <span className="run-log-text">{(l.words?.key ? sentence(saidText(l.words, l.text)) : l.text) || l.type}</span>
              </li>
            ))}
          </ul>
        </details>
      </div>
    </aside>
  )
  if (!narrow) return panel
  return (
    <>
      <div className="run-panel-scrim" onClick={() => setOverlay(false)} data-testid="run-panel-scrim" />
      {panel}
    </>
  )
}

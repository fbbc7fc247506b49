import { useEffect } from 'react'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import { PhaseBadge } from './PhaseBadge'
import { agentName, currentNode, nodeCounts, nodeTitle, workflowTitle } from './runInfo'
import './runs.css'
import { useTranslation } from '../../i18n'

/** Run mode's bar under the conversation header: the workflow and agent
 * pickers before a run starts (the message typed below is its first input),
 * then the run at a glance (phase, step, agent) with New run. */
export function RunBar() {
  const { t } = useTranslation()
  const { runs, packages, chat, settings } = useStores()
  const active = useStore(packages, (s) => s.active)
  const run = useStore(runs, (s) => s.run)
  const loaded = useStore(runs, (s) => s.loaded)
  const newRun = useStore(runs, (s) => s.newRun)
  const workflowId = useStore(runs, (s) => s.workflowId)
  const agentId = useStore(runs, (s) => s.agentId)
  const starting = useStore(runs, (s) => s.starting)
  const error = useStore(runs, (s) => s.error)
  const streaming = useStore(chat, (s) => s.streaming)
  const panelOpen = useStore(runs, (s) => s.panelOpen)
  const workflows = active?.workflows ?? []
  const agents = active?.agents ?? []

  // Keep the pickers on something the package offers.
  useEffect(() => {
    if (workflows.length > 0 && !workflows.some((w) => w.id === workflowId)) runs.actions.choose({ workflowId: workflows[0].id })
    if (agentId && !agents.some((a) => a.id === agentId)) runs.actions.choose({ agentId: '' })
  }, [runs, workflows, agents, workflowId, agentId])

  const picking = loaded && (!run || newRun)
  const chosen = workflows.find((w) => w.id === workflowId)

  return (
    <div className="run-bar" data-testid="run-bar" data-state={picking ? 'picking' : run ? 'run' : 'loading'}>
      {active && active.problem ? (
        <div className="run-bar-row">
          <span className="hint" data-testid="run-no-package">
            {active.problem}
          </span>
          <button type="button" className="btn btn-small" onClick={() => settings.actions.show('packages')}>
            {t('runBar.packages')}
          </button>
        </div>
      ) : picking ? (
        <div className="run-bar-row">
          <label className="run-pick">
            <span>{t('runBar.workflow')}</span>
            <select
              className="input input-small"
              value={workflowId}
              onChange={(e) => runs.actions.choose({ workflowId: e.target.value })}
              disabled={starting || workflows.length === 0}
              data-testid="run-workflow-picker"
            >
              {workflows.length === 0 && <option value="">{t('runBar.noWorkflows')}</option>}
              {workflows.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.displayName}
                </option>
              ))}
            </select>
          </label>
          <label className="run-pick">
            <span>{t('runBar.agent')}</span>
            <select className="input input-small" value={agentId} onChange={(e) => runs.actions.choose({ agentId: e.target.value })} disabled={starting} data-testid="run-agent-picker">
              <option value="">{t('runBar.eachAgent')}</option>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.icon ? `${a.icon} ` : ''}
                  {a.name}
                  {a.title ? ` — ${a.title}` : ''}
                </option>
              ))}
            </select>
          </label>
          <span className="hint run-bar-hint" title={chosen?.description}>
            {chosen ? t('runBar.steps', { count: chosen.nodes }) : ''}
            {t('runBar.typeFirst')}
          </span>
          {run && (
            <button type="button" className="btn btn-small btn-ghost" onClick={() => runs.actions.setNewRun(false)} data-testid="run-new-cancel">
              {t('common.cancel')}
            </button>
          )}
        </div>
      ) : run ? (
        <div className="run-bar-row">
          <PhaseBadge phase={run.phase} testId="run-bar-phase" />
          <span className="run-bar-title" data-testid="run-bar-title">
            {workflowTitle(active, run.workflowId)}
          </span>
          <span className="hint run-bar-step" data-testid="run-bar-step">
            {run.complete
              ? t('runBar.complete')
              : (() => {
                  const n = currentNode(run)
                  const c = nodeCounts(run)
                  const who = agentName(active, run.effectiveAgentId)
                  return `${t('runBar.step', { n: Math.min(c.done + 1, c.total), total: c.total })}${n ? `: ${nodeTitle(n)}` : ''}${who ? ` · ${who}` : ''}`
                })()}
          </span>
          <button type="button" className="btn btn-small" onClick={() => runs.actions.setNewRun(true)} disabled={streaming} data-testid="run-new">
            {t('runBar.newRun')}
          </button>
          {!panelOpen && (
            <button type="button" className="btn btn-small" onClick={() => runs.actions.setPanelOpen(true)} data-testid="run-panel-open">
              {t('runBar.showPanel')}
            </button>
          )}
        </div>
      ) : (
        <div className="run-bar-row hint">{t('runBar.loading')}</div>
      )}
      {error && (
        <div className="run-bar-error">
          <ErrorBanner error={error} onDismiss={runs.actions.dismissError} />
        </div>
      )}
    </div>
  )
}

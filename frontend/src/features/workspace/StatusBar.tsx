import type { ProjectInfo } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { workflowTitle } from '../runs/runInfo'
import './StatusBar.css'
import { Trans, useTranslation } from '../../i18n'

/** The bottom line of the workspace, shown only while the open
 * conversation has a run and outside Run mode (where the run bar says it):
 * the project and the run's workflow. The package is in the top bar and the
 * run's phase in the run bar: each is said once. */
export function StatusBar({ project }: { project: ProjectInfo }) {
  const { t } = useTranslation()
  const { packages, runs, conversations, chat } = useStores()
  const active = useStore(packages, (s) => s.active)
  const run = useStore(runs, (s) => s.run)
  const selected = useStore(conversations, (s) => s.selectedId)
  const runMode = useStore(chat, (s) => s.mode === 'run')
  if (!selected || !run || runMode) return null
  return (
    <footer className="status-bar" data-testid="status-bar">
      <span className="status-item" title={project.root}>
        <Trans t={t} i18nKey="status.project" values={{ name: project.name }} components={{ b: <strong data-testid="status-project" /> }} />
      </span>
      <span className="status-item" data-testid="status-run">
        <Trans t={t} i18nKey="status.run" values={{ name: workflowTitle(active, run.workflowId) }} components={{ b: <strong /> }} />
      </span>
    </footer>
  )
}

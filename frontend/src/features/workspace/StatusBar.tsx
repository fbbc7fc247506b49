import type { ProjectInfo } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { PhaseBadge } from '../runs/PhaseBadge'
import { workflowTitle } from '../runs/runInfo'
import './StatusBar.css'

/** The bottom line of the workspace: the project, its active package and
 * the run phase of the open conversation. */
export function StatusBar({ project }: { project: ProjectInfo }) {
  const { packages, runs, conversations, settings } = useStores()
  const active = useStore(packages, (s) => s.active)
  const run = useStore(runs, (s) => s.run)
  const selected = useStore(conversations, (s) => s.selectedId)
  const pkgLabel = active?.name ? `${active.name} ${active.version}` : project.activePackageId || 'none'
  return (
    <footer className="status-bar" data-testid="status-bar">
      <span className="status-item" title={project.root}>
        Project <strong data-testid="status-project">{project.name}</strong>
      </span>
      <button type="button" className="status-item status-link" onClick={() => settings.actions.show('packages')} title={active?.problem || 'Packages'}>
        Package{' '}
        <strong data-testid="status-package" className={active?.problem && project.activePackageId ? 'status-problem' : ''}>
          {pkgLabel}
        </strong>
      </button>
      {selected && (
        <span className="status-item" data-testid="status-run">
          {run ? (
            <>
              Run <strong>{workflowTitle(active, run.workflowId)}</strong>
              <PhaseBadge phase={run.phase} testId="status-run-phase" small />
            </>
          ) : (
            <>Run: none in this conversation</>
          )}
        </span>
      )}
    </footer>
  )
}

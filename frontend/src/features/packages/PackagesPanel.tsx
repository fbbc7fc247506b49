import { useEffect, useState } from 'react'
import type { InstalledPackage, PackageImport } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { useStore, useStores } from '../../stores'
import './packages.css'

/** Settings → Packages: the installed packages (name, version, workflows,
 * agents) with the open project's active one, choosing the active package,
 * removing a package (and installing the bundled demo again), and importing
 * a .bmad/.zip (native dialog or a typed path) with the full validation
 * report when the package is invalid. */
export function PackagesPanel() {
  const { packages, projects } = useStores()
  const view = useStore(packages, (s) => s.view)
  const loaded = useStore(packages, (s) => s.loaded)
  const error = useStore(packages, (s) => s.error)
  const importing = useStore(packages, (s) => s.importing)
  const lastImport = useStore(packages, (s) => s.lastImport)
  const project = useStore(projects, (s) => s.current)
  const installingDemo = useStore(packages, (s) => s.installingDemo)
  const [path, setPath] = useState('')
  const [removing, setRemoving] = useState<InstalledPackage | null>(null)

  useEffect(() => {
    void packages.actions.load()
    return () => packages.actions.clearImport()
  }, [packages])

  const list = view?.packages ?? []
  const activeId = project?.activePackageId ?? ''

  return (
    <div className="packages" data-testid="packages-panel">
      {error && <ErrorBanner error={error} onDismiss={packages.actions.dismissError} />}
      {view?.demoError && (
        <div className="alert" role="alert" data-testid="packages-demo-error">
          <div className="alert-message">{view.demoError}</div>
        </div>
      )}

      <section className="settings-section">
        <h3>Installed packages</h3>
        <p className="hint">
          {project ? (
            <>
              The active package of <strong>{project.name}</strong> provides the workflows of Run mode and the agents of Agent mode.
            </>
          ) : (
            'Open a project to choose its active package.'
          )}
        </p>
        {!loaded && <p className="hint">Loading…</p>}
        {loaded && list.length === 0 && (
          <p className="hint" data-testid="pkg-empty">
            No packages are installed.
          </p>
        )}
        <ul className="card-list">
          {list.map((p) => (
            <PackageCard key={p.id} pkg={p} active={p.id === activeId} canActivate={!!project} onRemove={() => setRemoving(p)} />
          ))}
        </ul>
        {loaded && view && !view.demoInstalled && !view.demoError && (
          <div className="pkg-demo-missing" data-testid="pkg-demo-missing">
            <span className="hint">The bundled demo package (a short brief-writing workflow with two agents) is not installed.</span>
            <button type="button" className="btn btn-small" disabled={installingDemo} onClick={() => void packages.actions.installDemo()} data-testid="pkg-install-demo">
              {installingDemo ? 'Installing…' : 'Install the demo package'}
            </button>
          </div>
        )}
      </section>
      {removing && (
        <RemoveDialog
          pkg={removing}
          active={removing.id === activeId}
          isDemo={removing.name === view?.demoName}
          projectName={project?.name ?? ''}
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            if (await packages.actions.remove(removing.id)) setRemoving(null)
          }}
        />
      )}

      <section className="settings-section">
        <h3>Import a package</h3>
        <p className="hint">A .bmad or .zip file (or an unpacked package folder). It is checked against the package schemas before anything is installed.</p>
        <form
          className="pkg-import"
          onSubmit={(e) => {
            e.preventDefault()
            void packages.actions.importPackage(path)
          }}
        >
          <input
            className="input mono"
            placeholder="/full/path/to/package.bmad"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            aria-label="Package file path"
            data-testid="pkg-import-path"
          />
          <button type="submit" className="btn btn-primary" disabled={importing || !path.trim()} data-testid="pkg-import-submit">
            {importing ? 'Checking…' : 'Import'}
          </button>
          <button type="button" className="btn" disabled={importing} onClick={() => void packages.actions.chooseAndImport()} data-testid="pkg-import-choose">
            Choose file…
          </button>
        </form>
        {lastImport && <ImportResult result={lastImport} canActivate={!!project} activeId={activeId} />}
      </section>
    </div>
  )
}

function PackageCard({ pkg, active, canActivate, onRemove }: { pkg: InstalledPackage; active: boolean; canActivate: boolean; onRemove: () => void }) {
  const { packages } = useStores()
  const activating = useStore(packages, (s) => s.activating === pkg.id)
  const removing = useStore(packages, (s) => s.removing === pkg.id)
  return (
    <li className={`card pkg-card ${active ? 'is-active' : ''}`} data-testid="pkg-item" data-id={pkg.id} data-name={pkg.name} data-active={active}>
      <div className="pkg-head">
        <strong className="pkg-name">{pkg.name}</strong>
        <span className="badge">{pkg.version}</span>
        {active && (
          <span className="badge badge-active" data-testid="pkg-active">
            Active in this project
          </span>
        )}
        <span className="spacer" />
        {canActivate && !active && (
          <button type="button" className="btn btn-small" disabled={activating} onClick={() => void packages.actions.setActive(pkg.id)} data-testid="pkg-use">
            {activating ? 'Switching…' : 'Use in this project'}
          </button>
        )}
        <button type="button" className="btn btn-small btn-ghost" disabled={removing} onClick={onRemove} data-testid="pkg-remove">
          {removing ? 'Removing…' : 'Remove…'}
        </button>
      </div>
      {pkg.description && <p className="pkg-desc">{pkg.description}</p>}
      <dl className="pkg-facts">
        <dt>Workflows</dt>
        <dd data-testid="pkg-workflows">{pkg.workflows.length ? pkg.workflows.map((w) => w.displayName || w.id).join(', ') : '—'}</dd>
        <dt>Agents</dt>
        <dd data-testid="pkg-agents">
          {pkg.agents.length
            ? pkg.agents.map((a) => (
                <span key={a.id} className="pkg-agent" title={a.id}>
                  {a.icon ? `${a.icon} ` : ''}
                  {a.name || a.id}
                  {a.title ? ` (${a.title})` : ''}
                </span>
              ))
            : '—'}
        </dd>
        <dt>Id</dt>
        <dd className="mono">{pkg.id}</dd>
      </dl>
      {(pkg.warnings?.length ?? 0) > 0 && (
        <details className="pkg-warnings">
          <summary>
            {pkg.warnings!.length} warning{pkg.warnings!.length === 1 ? '' : 's'}
          </summary>
          <ProblemList problems={pkg.warnings!} warnings />
        </details>
      )}
    </li>
  )
}

function RemoveDialog({
  pkg,
  active,
  isDemo,
  projectName,
  onCancel,
  onConfirm,
}: {
  pkg: InstalledPackage
  active: boolean
  isDemo: boolean
  projectName: string
  onCancel: () => void
  onConfirm: () => Promise<void>
}) {
  return (
    <ConfirmDialog title="Remove package?" confirmLabel="Remove" busyLabel="Removing…" testId="pkg-remove" onCancel={onCancel} onConfirm={onConfirm}>
      <p>
        <strong>{pkg.name}</strong> {pkg.version} will be uninstalled and its files deleted. Conversations and artifacts stay; runs of its workflows can no longer
        continue.
      </p>
      {active && (
        <p data-testid="pkg-remove-active">
          It is the active package of <strong>{projectName}</strong>: the project will have no active package until you choose another.
        </p>
      )}
      <p className="hint">{isDemo ? 'The bundled demo can be installed again from this page.' : 'You can import its package file again later.'}</p>
    </ConfirmDialog>
  )
}

function ImportResult({ result, canActivate, activeId }: { result: PackageImport; canActivate: boolean; activeId: string }) {
  const { packages } = useStores()
  if (result.ok && result.package) {
    const p = result.package
    const w = result.warnings.length
    return (
      <div className="pkg-import-ok" role="status" data-testid="pkg-import-ok">
        <span>
          ✓ Installed <strong>{p.name}</strong> {p.version}
          {w > 0 ? ` with ${w} warning${w === 1 ? '' : 's'}` : ''}.
        </span>
        {canActivate && p.id !== activeId && (
          <button type="button" className="btn btn-small btn-primary" onClick={() => void packages.actions.setActive(p.id)} data-testid="pkg-import-use">
            Use in this project
          </button>
        )}
        {w > 0 && <ProblemList problems={result.warnings} warnings />}
      </div>
    )
  }
  if (result.exists) {
    return <ReplaceDialog result={result} existing={result.exists} />
  }
  const n = result.problems.length
  return (
    <div className="pkg-report" role="alert" data-testid="pkg-import-report">
      <div className="pkg-report-head">
        <strong>Not installed: {result.file} is not a valid package.</strong>
        <span>
          {n} problem{n === 1 ? '' : 's'} found{result.warnings.length > 0 ? `, and ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}` : ''}:
        </span>
      </div>
      <ProblemList problems={[...result.problems, ...result.warnings.map((w) => ({ ...w, warning: true }))]} />
    </div>
  )
}

/** Asks before an import replaces the installed package of the same id and
 * version; nothing was changed until the user confirms. */
function ReplaceDialog({ result, existing }: { result: PackageImport; existing: InstalledPackage }) {
  const { packages } = useStores()
  return (
    <ConfirmDialog
      title="Replace the installed package?"
      confirmLabel="Replace"
      busyLabel="Replacing…"
      testId="pkg-replace"
      onCancel={() => packages.actions.clearImport()}
      onConfirm={async () => {
        await packages.actions.importPackage(result.file, true)
      }}
    >
      <p>
        <strong>{existing.name}</strong> {existing.version} is installed already (id <span className="mono">{existing.id}</span>, installed{' '}
        {new Date(existing.installedAt).toLocaleString()}).
      </p>
      <p>Importing {result.file} replaces its files. Conversations, runs and artifacts stay; runs of its workflows continue with the new files.</p>
    </ConfirmDialog>
  )
}

type ListedProblem = { file?: string; pointer?: string; message: string; warning?: boolean }

function ProblemList({ problems, warnings = false }: { problems: ListedProblem[]; warnings?: boolean }) {
  return (
    <table className="pkg-problems">
      <thead>
        <tr>
          <th>File</th>
          <th>{warnings ? 'Warning' : 'Problem'}</th>
        </tr>
      </thead>
      <tbody>
        {problems.map((p, i) => {
          const warning = warnings || !!p.warning
          return (
            <tr key={i} data-testid={warning ? 'pkg-warning' : 'pkg-problem'} data-file={p.file ?? ''} className={warning ? 'pkg-problem-warning' : undefined}>
              <td className="mono">
                {p.file || '(package)'}
                {p.pointer && <span className="pkg-pointer"> {p.pointer}</span>}
              </td>
              <td>
                {warning && !warnings && <span className="badge">warning</span>} {p.message}
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

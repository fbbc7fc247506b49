import { useEffect, useState } from 'react'
import type { InstalledPackage, PackageImport } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { useStore, useStores } from '../../stores'
import './packages.css'
import { formatDateTime, Trans, useTranslation } from '../../i18n'
import { backendText } from '../../i18n/backend'

/** Settings → Packages: the installed packages (name, version, workflows,
 * agents) with the open project's active one, choosing the active package,
 * removing a package (and installing the bundled demo again), and importing
 * a .bmad/.zip (native dialog or a typed path) with the full validation
 * report when the package is invalid. */
export function PackagesPanel() {
  const { t } = useTranslation()
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
        <h3>{t('pkg.installed')}</h3>
        <p className="hint">
          {project ? (
            <>
              <Trans t={t} i18nKey="pkg.activeOf" values={{ project: project.name }} components={{ b: <strong /> }} />
            </>
          ) : (
            t('pkg.openProject')
          )}
        </p>
        {!loaded && <p className="hint">{t('common.loading')}</p>}
        {loaded && list.length === 0 && (
          <p className="hint" data-testid="pkg-empty">
            {t('pkg.none')}
          </p>
        )}
        <ul className="card-list">
          {list.map((p) => (
            <PackageCard key={p.id} pkg={p} active={p.id === activeId} canActivate={!!project} onRemove={() => setRemoving(p)} />
          ))}
        </ul>
        {loaded && view && !view.demoInstalled && !view.demoError && (
          <div className="pkg-demo-missing" data-testid="pkg-demo-missing">
            <span className="hint">{t('pkg.demoMissing')}</span>
            <button type="button" className="btn btn-small" disabled={installingDemo} onClick={() => void packages.actions.installDemo()} data-testid="pkg-install-demo">
              {installingDemo ? t('pkg.installing') : t('pkg.installDemo')}
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
        <h3>{t('pkg.import')}</h3>
        <p className="hint">{t('pkg.importHint')}</p>
        <form
          className="pkg-import"
          onSubmit={(e) => {
            e.preventDefault()
            void packages.actions.importPackage(path)
          }}
        >
          <input
            className="input mono"
            placeholder={'/full/path/to/package.bmad'}
            value={path}
            onChange={(e) => setPath(e.target.value)}
            aria-label={t('pkg.pathLabel')}
            data-testid="pkg-import-path"
          />
          <button type="submit" className="btn btn-primary" disabled={importing || !path.trim()} data-testid="pkg-import-submit">
            {importing ? t('pkg.checking') : t('pkg.importBtn')}
          </button>
          <button type="button" className="btn" disabled={importing} onClick={() => void packages.actions.chooseAndImport()} data-testid="pkg-import-choose">
            {t('pkg.choose')}
          </button>
        </form>
        {lastImport && <ImportResult result={lastImport} canActivate={!!project} activeId={activeId} />}
      </section>
    </div>
  )
}

function PackageCard({ pkg, active, canActivate, onRemove }: { pkg: InstalledPackage; active: boolean; canActivate: boolean; onRemove: () => void }) {
  const { t } = useTranslation()
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
            {t('pkg.active')}
          </span>
        )}
        <span className="spacer" />
        {canActivate && !active && (
          <button type="button" className="btn btn-small" disabled={activating} onClick={() => void packages.actions.setActive(pkg.id)} data-testid="pkg-use">
            {activating ? t('pkg.switching') : t('pkg.use')}
          </button>
        )}
        <button type="button" className="btn btn-small btn-ghost" disabled={removing} onClick={onRemove} data-testid="pkg-remove">
          {removing ? t('pkg.removing') : t('pkg.removeMore')}
        </button>
      </div>
      {pkg.description && <p className="pkg-desc">{pkg.description}</p>}
      <dl className="pkg-facts">
        <dt>{t('pkg.workflows')}</dt>
        <dd data-testid="pkg-workflows">{pkg.workflows.length ? pkg.workflows.map((w) => w.displayName || w.id).join(', ') : '—'}</dd>
        <dt>{t('pkg.agents')}</dt>
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
        <dt>{t('pkg.id')}</dt>
        <dd className="mono">{pkg.id}</dd>
      </dl>
      {(pkg.warnings?.length ?? 0) > 0 && (
        <details className="pkg-warnings">
          <summary>
            {t('pkg.warnings', { count: pkg.warnings!.length })}
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
  const { t } = useTranslation()
  return (
    <ConfirmDialog title={t('pkg.removeTitle')} confirmLabel={t('common.remove')} busyLabel={t('pkg.removing')} testId="pkg-remove" onCancel={onCancel} onConfirm={onConfirm}>
      <p>
        <Trans t={t} i18nKey="pkg.removeBody" values={{ name: pkg.name, version: pkg.version }} components={{ b: <strong /> }} />
      </p>
      {active && (
        <p data-testid="pkg-remove-active">
          <Trans t={t} i18nKey="pkg.removeActive" values={{ project: projectName }} components={{ b: <strong /> }} />
        </p>
      )}
      <p className="hint">{isDemo ? t('pkg.demoAgain') : t('pkg.importAgain')}</p>
    </ConfirmDialog>
  )
}

function ImportResult({ result, canActivate, activeId }: { result: PackageImport; canActivate: boolean; activeId: string }) {
  const { t } = useTranslation()
  const { packages } = useStores()
  if (result.ok && result.package) {
    const p = result.package
    const w = result.warnings.length
    return (
      <div className="pkg-import-ok" role="status" data-testid="pkg-import-ok">
        <span>
          <Trans t={t} i18nKey={w > 0 ? 'pkg.installedWarn' : 'pkg.installedOk'} count={w} values={{ name: p.name, version: p.version }} components={{ b: <strong /> }} />
        </span>
        {canActivate && p.id !== activeId && (
          <button type="button" className="btn btn-small btn-primary" onClick={() => void packages.actions.setActive(p.id)} data-testid="pkg-import-use">
            {t('pkg.use')}
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
        <strong>{t('pkg.notInstalled', { file: result.file })}</strong>
        <span>
          {result.warnings.length > 0 ? t('pkg.problemsWarn', { count: n, warnings: t('pkg.warnings', { count: result.warnings.length }) }) : t('pkg.problems', { count: n })}
        </span>
      </div>
      <ProblemList problems={[...result.problems, ...result.warnings.map((w) => ({ ...w, warning: true }))]} />
    </div>
  )
}

/** Asks before an import replaces the installed package of the same id and
 * version; nothing was changed until the user confirms. */
function ReplaceDialog({ result, existing }: { result: PackageImport; existing: InstalledPackage }) {
  const { t } = useTranslation()
  const { packages } = useStores()
  return (
    <ConfirmDialog
      title={t('pkg.replaceTitle')}
      confirmLabel={t('pkg.replace')}
      busyLabel={t('pkg.replacing')}
      testId="pkg-replace"
      onCancel={() => packages.actions.clearImport()}
      onConfirm={async () => {
        await packages.actions.importPackage(result.file, true)
      }}
    >
      <p>
        <Trans
          t={t}
          i18nKey="pkg.replaceBody"
          values={{ name: existing.name, version: existing.version, id: existing.id, when: formatDateTime(existing.installedAt) }}
          components={{ b: <strong />, m: <span className="mono" /> }}
        />
      </p>
      <p>{t('pkg.replaceFiles', { file: result.file })}</p>
    </ConfirmDialog>
  )
}

type ListedProblem = { file?: string; pointer?: string; message: string; warning?: boolean }

function ProblemList({ problems, warnings = false }: { problems: ListedProblem[]; warnings?: boolean }) {
  const { t } = useTranslation()
  return (
    <table className="pkg-problems">
      <thead>
        <tr>
          <th>{t('pkg.col.file')}</th>
          <th>{warnings ? t('pkg.col.warning') : t('pkg.col.problem')}</th>
        </tr>
      </thead>
      <tbody>
        {problems.map((p, i) => {
          const warning = warnings || !!p.warning
          return (
            <tr key={i} data-testid={warning ? 'pkg-warning' : 'pkg-problem'} data-file={p.file ?? ''} className={warning ? 'pkg-problem-warning' : undefined}>
              <td className="mono">
                {p.file || t('pkg.package')}
                {p.pointer && <span className="pkg-pointer"> {p.pointer}</span>}
              </td>
              <td>
                {warning && !warnings && <span className="badge">{t('pkg.warningBadge')}</span>} {backendText(p)}
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

import { useEffect, useState } from 'react'
import { ErrorBanner } from '../../components/ErrorBanner'
import { Logo } from '../../components/Logo'
import { useStore, useStores } from '../../stores'
import { FirstRun, FirstRunDone } from './FirstRun'
import { MovedProject } from './MovedProject'
import { NewProjectForm } from './NewProjectForm'
import { OpenPathForm } from './OpenPathForm'
import { RecentProjects } from './RecentProjects'
import './start.css'
import { useTranslation } from '../../i18n'

/** The first screen: create a project, open one, or pick a recent one. */
export function StartScreen() {
  const { t } = useTranslation()
  const { projects, appInfo, settings, setup } = useStores()
  const version = useStore(appInfo, (s) => s.version)
  const recent = useStore(projects, (s) => s.recent)
  const recentLoaded = useStore(projects, (s) => s.recentLoaded)
  const busy = useStore(projects, (s) => s.busy)
  const error = useStore(projects, (s) => s.error)
  const moved = useStore(projects, (s) => s.moved)
  const [creating, setCreating] = useState(false)
  const llmConfigured = useStore(settings, (s) => s.view?.llmConfigured)
  const applied = useStore(setup, (s) => s.applied)
  const defaultLocation = useStore(setup, (s) => s.defaultLocation)
  const a = projects.actions

  useEffect(() => {
    void setup.actions.loadDefaultLocation()
  }, [setup])

  return (
    <main className="start" data-testid="start-screen">
      <div className="start-inner">
        <header className="start-header">
          <Logo size={48} />
          <div>
            <h1 className="start-title" data-testid="app-name">
              CrewAgent
            </h1>
            <p className="start-tagline">
              {t('start.tagline')}
              {version && (
                <span className="start-version" data-testid="app-version">
                  v{version}
                </span>
              )}
            </p>
          </div>
          <button type="button" className="btn btn-small start-settings" onClick={() => settings.actions.show()} data-testid="open-settings">
            {t('start.settings')}
          </button>
        </header>

        {error && <ErrorBanner error={error} onDismiss={a.dismissError} />}

        {moved && (
          <MovedProject
            root={moved.root}
            question={moved.question}
            busy={busy !== null}
            onAnswer={(keep) => void a.answerMoved(keep)}
            onCancel={a.cancelMoved}
          />
        )}

        {applied ? <FirstRunDone name={applied.name} model={applied.model} onDismiss={setup.actions.clearApplied} /> : llmConfigured === false && <FirstRun />}

        <div className="start-actions">
          <button
            type="button"
            className="btn btn-primary btn-large"
            onClick={() => setCreating((c) => !c)}
            aria-expanded={creating}
            data-testid="new-project-button"
          >
            {t('start.newProject')}
          </button>
          <button
            type="button"
            className="btn btn-large"
            onClick={() => void a.chooseAndOpen()}
            disabled={busy !== null}
            data-testid="open-project-button"
          >
            {t('start.openProject')}
          </button>
          {busy && (
            <span className="start-busy" role="status" data-testid="busy">
              {busy === 'choose' ? t('start.waitingDialog') : t('start.working')}
            </span>
          )}
        </div>

        {creating && (
          <NewProjectForm
            busy={busy !== null}
            defaultLocation={defaultLocation ?? ''}
            chooseFolder={a.chooseFolder}
            onCreate={a.create}
            onCancel={() => setCreating(false)}
          />
        )}

        <OpenPathForm busy={busy !== null} onOpen={a.open} />

        <RecentProjects
          projects={recent}
          loaded={recentLoaded}
          busy={busy !== null}
          onOpen={(root) => void a.open(root)}
          onForget={(root) => void a.forget(root)}
        />
      </div>
    </main>
  )
}

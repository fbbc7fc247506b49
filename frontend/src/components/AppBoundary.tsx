import { Component, type ErrorInfo, type ReactNode } from 'react'
import { t } from '../i18n'
import './AppBoundary.css'

/** What the window shows when drawing a screen fails (a render that throws,
 * a part of the page that could not be loaded): what happened, with the
 * error under Details, and a way on — Try again draws the screen anew,
 * Reload reloads the page (the conversations are on disk; nothing typed is
 * kept). Without it the window would go blank. */
export class AppBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state: { error: Error | null } = { error: null }

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) }
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('the window could not be drawn:', error, info.componentStack)
  }

  render() {
    const { error } = this.state
    if (!error) return this.props.children
    return (
      <main className="app-boundary" role="alert" data-testid="app-error">
        <h1>{t('appError.title')}</h1>
        <p>{t('appError.body')}</p>
        <details>
          <summary>{t('common.details')}</summary>
          <pre className="mono">{`${error.message}\n${error.stack ?? ''}`}</pre>
        </details>
        <div className="app-boundary-actions">
          <button type="button" className="btn btn-primary" onClick={() => this.setState({ error: null })} data-testid="app-error-retry">
            {t('appError.retry')}
          </button>
          <button type="button" className="btn" onClick={() => window.location.reload()} data-testid="app-error-reload">
            {t('appError.reload')}
          </button>
        </div>
      </main>
    )
  }
}

import { useCallback, useEffect, useState } from 'react'
import { ErrorBanner } from '../../components/ErrorBanner'
import { Logo } from '../../components/Logo'
import type { ProjectInfo } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { ChatView } from '../chat/ChatView'
import { Sidebar } from '../conversations/Sidebar'
import { StatusBar } from './StatusBar'
import { ConversationSwitcher } from './ConversationSwitcher'
import { ShortcutsSheet } from './ShortcutsSheet'
import { shortcutOf } from './shortcuts'
import './workspace.css'
import { useTranslation } from '../../i18n'

/** The open project: the conversation sidebar and the open conversation.
 * Keys: Ctrl/Cmd+N starts a conversation, Ctrl/Cmd+B hides or shows the
 * conversation list, Ctrl/Cmd+K goes to a conversation, `?` lists the keys,
 * Esc stops the reply in progress. A desktop notification says when work
 * finishes while the window is in the background. */
export function WorkspaceScreen({ project }: { project: ProjectInfo }) {
  const { t } = useTranslation()
  const { projects, conversations, chat, settings, runs, packages, display, notify } = useStores()
  const [overlay, setOverlay] = useState<'switcher' | 'sheet' | null>(null)
  const closeOverlay = useCallback(() => setOverlay(null), [])
  const sidebarHidden = useStore(display, (s) => s.sidebarHidden)
  const busy = useStore(projects, (s) => s.busy)
  const error = useStore(projects, (s) => s.error)
  const notice = useStore(projects, (s) => s.notice)
  const convError = useStore(conversations, (s) => s.error)
  const selectedId = useStore(conversations, (s) => s.selectedId)
  const listLoaded = useStore(conversations, (s) => s.loaded)
  const listEmpty = useStore(conversations, (s) => s.list.length === 0)
  const llmConfigured = useStore(settings, (s) => s.view?.llmConfigured ?? true)
  const active = useStore(packages, (s) => s.active)
  const pkgError = useStore(packages, (s) => s.error)
  const demoError = useStore(packages, (s) => s.view?.demoError ?? '')
  const settingsOpen = useStore(settings, (s) => s.open)

  useEffect(() => {
    const stopConversations = conversations.actions.start()
    const stopChat = chat.actions.start()
    const stopRuns = runs.actions.start()
    return () => {
      stopConversations()
      stopChat()
      stopRuns()
      conversations.actions.select(null)
      void chat.actions.open(null)
      void runs.actions.open(null)
    }
  }, [conversations, chat, runs, project.id])

  useEffect(() => notify.actions.start(), [notify])

  // The package decides the agents and the workflows: reload them when it changes.
  useEffect(() => {
    void chat.actions.loadAgents()
    void packages.actions.loadActive()
    void packages.actions.load()
  }, [chat, packages, project.id, project.activePackageId])

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return
      const shortcut = shortcutOf(e, document.activeElement)
      if (shortcut === 'switcher' || shortcut === 'sheet') {
        // Not over another dialog (its own keys go first).
        if (document.querySelector('.modal-backdrop')) return
        e.preventDefault()
        setOverlay(shortcut)
        return
      }
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'n') {
        e.preventDefault()
        void conversations.actions.create()
      } else if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'b') {
        e.preventDefault()
        display.actions.toggleSidebar()
      } else if (e.key === 'Escape' && (chat.getState().streaming || chat.getState().waitingFor)) {
        e.preventDefault()
        void chat.actions.stop()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [conversations, chat, display])

  return (
    <div className="workspace" data-testid="workspace-screen">
      <header className="workspace-bar">
        <button
          type="button"
          className="icon-btn sidebar-toggle"
          onClick={display.actions.toggleSidebar}
          aria-label={sidebarHidden ? t('ws.showList') : t('ws.hideList')}
          aria-expanded={!sidebarHidden}
          aria-controls="conversation-sidebar"
          title={sidebarHidden ? t('ws.showTitle') : t('ws.hideTitle')}
          data-testid="sidebar-toggle"
        >
          <span aria-hidden="true">☰</span>
        </button>
        <Logo size={24} />
        <div className="workspace-title">
          <h1 className="workspace-name" title={project.root} data-testid="workspace-project-name">
            {project.name}
          </h1>
          <span className="sr-only" data-testid="workspace-project-root">
            {project.root}
          </span>
          <span className="sr-only" data-testid="workspace-project-id">
            {project.id}
          </span>
        </div>
        <button
          type="button"
          className="btn btn-ghost btn-small workspace-package"
          title={active?.problem || t('ws.packageTitle', { id: project.activePackageId })}
          onClick={() => settings.actions.show('packages')}
          data-testid="workspace-package"
          data-package={project.activePackageId}
        >
          {t('ws.package', { name: active?.name ? `${active.name} ${active.version}` : project.activePackageId || t('ws.none') })}
        </button>
        <button type="button" className="btn btn-small" onClick={() => settings.actions.show()} data-testid="open-settings">
          <span aria-hidden="true">⚙</span> {t('ws.settings')}
        </button>
        <button type="button" className="btn btn-small" onClick={() => void projects.actions.close()} disabled={busy !== null} data-testid="workspace-close">
          {t('ws.close')}
        </button>
      </header>
      {notice && (
        <div className="workspace-errors">
          <div className="notice" role="status" data-testid="project-notice">
            <div className="notice-message">{notice}</div>
            <button type="button" className="btn btn-ghost btn-small" onClick={projects.actions.dismissNotice} data-testid="project-notice-dismiss">
              {t('common.dismiss')}
            </button>
          </div>
        </div>
      )}
      {(error || convError || demoError || (pkgError && !settingsOpen)) && (
        <div className="workspace-errors">
          {error && <ErrorBanner error={error} onDismiss={projects.actions.dismissError} />}
          {convError && <ErrorBanner error={convError} onDismiss={conversations.actions.dismissError} />}
          {demoError && (
            <div className="alert" role="alert" data-testid="demo-error">
              <div className="alert-message">{demoError}</div>
            </div>
          )}
          {pkgError && !settingsOpen && <ErrorBanner error={pkgError} onDismiss={packages.actions.dismissError} />}
        </div>
      )}
      <div className="workspace-main">
        {!sidebarHidden && <Sidebar />}
        <main className="workspace-content">
          {selectedId ? (
            <ChatView conversationId={selectedId} />
          ) : (
            <div className="workspace-empty" data-testid="workspace-empty">
              <h2>{listLoaded && listEmpty ? t('ws.startFirst') : t('ws.pick')}</h2>
              <p className="hint">
                {listLoaded && listEmpty ? t('ws.kept') : t('ws.choose')}
              </p>
              <div className="workspace-empty-actions">
                <button type="button" className="btn btn-primary" onClick={() => void conversations.actions.create()} data-testid="empty-new-conversation">
                  {t('ws.newConv')}
                </button>
                {!llmConfigured && (
                  <button type="button" className="btn" onClick={() => settings.actions.show()} data-testid="empty-open-settings">
                    {t('ws.configure')}
                  </button>
                )}
              </div>
              <dl className="facts">
                <dt>{t('ws.folder')}</dt>
                <dd className="mono">{project.root}</dd>
                <dt>{t('ws.data')}</dt>
                <dd className="mono">{project.dataDir}</dd>
              </dl>
            </div>
          )}
        </main>
      </div>
      <StatusBar project={project} />
      {overlay === 'switcher' && <ConversationSwitcher onClose={closeOverlay} />}
      {overlay === 'sheet' && <ShortcutsSheet onClose={closeOverlay} />}
    </div>
  )
}

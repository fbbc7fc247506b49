import { useCallback, useEffect, useMemo, useState } from 'react'
import { ErrorCodes } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { ContextInspector } from '../context/ContextInspector'
import { McpNotice } from '../mcp/McpNotice'
import { ArtifactViewer } from '../runs/ArtifactViewer'
import { RunBar } from '../runs/RunBar'
import { RunPanel } from '../runs/RunPanel'
import { useStore, useStores } from '../../stores'
import { ChatHeader } from './ChatHeader'
import { Composer } from './Composer'
import { ElicitationCards } from '../mcp/ElicitationCard'
import { FindBar } from './FindBar'
import { MessageList, type FindRequest } from './MessageList'
import { RestoreDialog } from './RestoreDialog'
import { ReplyAnnouncer } from './ReplyAnnouncer'
import { WaitingBar } from './WaitingBar'
import './chat.css'
import { useTranslation } from '../../i18n'

/** The open conversation: header with the mode switch, the run bar in Run
 * mode, the messages, the input with the context meter, and the run panel
 * on the right when the conversation has a workflow run. */
export function ChatView({ conversationId }: { conversationId: string }) {
  const { t } = useTranslation()
  const { chat, conversations, settings, runs, packages } = useStores()
  const error = useStore(chat, (s) => s.error)
  const loading = useStore(chat, (s) => s.loading)
  const mode = useStore(chat, (s) => s.mode)
  const entriesCount = useStore(chat, (s) => s.entries.length)
  const streaming = useStore(chat, (s) => s.streaming)
  const llmConfigured = useStore(settings, (s) => s.view?.llmConfigured ?? true)
  const hasRun = useStore(runs, (s) => !!s.run)
  const packageProblem = useStore(packages, (s) => s.active?.problem ?? '')
  const notice = useStore(chat, (s) => s.notice)
  const [inspecting, setInspecting] = useState(false)

  // A confirmation (an export saved) goes away by itself.
  useEffect(() => {
    if (!notice) return
    const t = setTimeout(() => chat.actions.dismissNotice(), 8000)
    return () => clearTimeout(t)
  }, [chat, notice])

  useEffect(() => {
    void chat.actions.open(conversationId)
    void runs.actions.open(conversationId)
  }, [chat, runs, conversationId])

  const onFork = useCallback((messageId: string) => void conversations.actions.fork(conversationId, { messageId }), [conversations, conversationId])
  // "Rewind to here" on a user message: the dialog lives here, above the
  // list's rows (which come and go as they scroll). It keeps the
  // conversation it was opened in: a rewind opens its fork meanwhile.
  const [rewindTo, setRewindTo] = useState<{ conversationId: string; messageId: string } | null>(null)
  const onRewind = useCallback((messageId: string) => setRewindTo({ conversationId, messageId }), [conversationId])
  const closeRewind = useCallback(() => setRewindTo(null), [])
  useEffect(() => () => setRewindTo(null), [conversationId])

  // Ctrl/Cmd+F: search in the conversation; the list scrolls to each hit.
  const [finding, setFinding] = useState(0)
  const [findQuery, setFindQuery] = useState('')
  const [findAt, setFindAt] = useState(0)
  const [findCount, setFindCount] = useState(0)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== 'f') return
      if (document.querySelector('.modal-backdrop')) return
      e.preventDefault()
      setFinding((n) => n + 1)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  useEffect(() => {
    setFinding(0)
    setFindQuery('')
  }, [conversationId])
  const closeFind = useCallback(() => {
    setFinding(0)
    setFindQuery('')
  }, [])
  const find: FindRequest | undefined = useMemo(() => (finding && findQuery.trim() ? { query: findQuery, at: findAt } : undefined), [finding, findQuery, findAt])
  const stepFind = useCallback((dir: 1 | -1) => setFindAt((a) => (findCount ? (a + dir + findCount) % findCount : 0)), [findCount])

  const disabledReason = !llmConfigured ? t('chat.noLlm') : mode === 'run' && packageProblem && !hasRun ? t('chat.runNeedsPackage') : null

  return (
    <section className="chat" data-testid="chat-view" data-conversation={conversationId} data-streaming={streaming} data-mode={mode}>
      <ChatHeader />
      {!llmConfigured && (
        <div className="notice" data-testid="llm-not-configured">
          <span>{t('chat.noLlmNotice')}</span>
          <button type="button" className="btn btn-small btn-primary" onClick={() => settings.actions.show()} data-testid="open-settings-from-notice">
            {t('chat.openSettingsBtn')}
          </button>
        </div>
      )}
      <div className="chat-body">
        <div className="chat-main">
          {mode === 'run' && <RunBar />}
          {notice && (
            <div className="chat-notice" role="status" data-testid="chat-notice">
              <span>{notice}</span>
              <button type="button" className="btn btn-ghost btn-small" onClick={chat.actions.dismissNotice} aria-label={t('common.dismiss')}>
                ✕
              </button>
            </div>
          )}
          {error && (
            <div className="chat-error">
              <ErrorBanner error={error} onDismiss={chat.actions.dismissError} />
              {(error.code === ErrorCodes.LLMNotConfigured || error.code.startsWith('LLM_')) && (
                <button type="button" className="btn btn-small" onClick={() => settings.actions.show()}>
                  {t('chat.openSettingsBtn')}
                </button>
              )}
            </div>
          )}
          {loading ? (
            <div className="chat-empty">{t('common.loading')}</div>
          ) : entriesCount === 0 && !streaming ? (
            <div className="chat-empty" data-testid="chat-empty">
              {mode === 'run' ? (
                <>
                  <p>{t('chat.emptyRun')}</p>
                  <p className="hint">{t('chat.emptyRunHint')}</p>
                </>
              ) : (
                <>
                  <p>{t('chat.empty')}</p>
                  <p className="hint">{t('chat.emptyHint')}</p>
                </>
              )}
            </div>
          ) : (
            <>
              {finding > 0 && (
                <FindBar
                  query={findQuery}
                  setQuery={(q) => {
                    setFindQuery(q)
                    setFindAt(0)
                  }}
                  at={findAt}
                  count={findCount}
                  step={stepFind}
                  onClose={closeFind}
                  focusKey={finding}
                />
              )}
              <MessageList onFork={onFork} onRewind={onRewind} find={find} onFound={setFindCount} />
            </>
          )}
          <McpNotice />
          <ElicitationCards />
          <WaitingBar />
          <Composer onOpenInspector={() => setInspecting(true)} disabledReason={disabledReason} />
        </div>
        <RunPanel />
      </div>
      {rewindTo?.conversationId === conversationId && (
        <RestoreDialog kind="rewind" conversationId={rewindTo.conversationId} target={rewindTo.messageId} onClose={closeRewind} />
      )}
      <ReplyAnnouncer />
      {inspecting && <ContextInspector onClose={() => setInspecting(false)} />}
      <ArtifactViewer />
    </section>
  )
}

import { useEffect, useRef, useState } from 'react'
import type { ExportFormat, Mode } from '../../bridge'
import { timeAgo } from '../../lib/time'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'

const modes: Mode[] = ['chat', 'agent', 'run']

/** Title, the Chat / Agent / Run switch (history is kept; only the mode of
 * the next request changes), the agent picker and the checkpoints. */
export function ChatHeader() {
  const { t } = useTranslation()
  const { chat, conversations } = useStores()
  const meta = useStore(chat, (s) => s.meta)
  const mode = useStore(chat, (s) => s.mode)
  const agentId = useStore(chat, (s) => s.agentId)
  const agents = useStore(chat, (s) => s.agents)
  const streaming = useStore(chat, (s) => s.streaming)
  const [cpOpen, setCpOpen] = useState(false)
  if (!meta) return null
  const agentList = agents?.agents ?? []
  const checkpoints = meta.checkpoints ?? []

  return (
    <header className="chat-header">
      <div className="chat-title-wrap">
        <h2 className="chat-title" data-testid="chat-title" title={meta.title}>
          {meta.title}
        </h2>
        <span className="chat-sub">
          {t('count.messages', { count: meta.messageCount })} · {timeAgo(meta.lastActiveAt)}
          <CreatedBy />
        </span>
      </div>
      <div className="mode-switch" role="radiogroup" aria-label={t('chat.mode.label')} data-testid="mode-switch">
        {modes.map((mode_) => ({ mode: mode_, label: t(`chat.mode.${mode_}`), hint: t(`chat.mode.${mode_}Hint`) })).map((m) => (
          <button
            key={m.mode}
            type="button"
            role="radio"
            aria-checked={mode === m.mode}
            className={`mode-btn ${mode === m.mode ? 'is-active' : ''}`}
            title={m.mode === 'agent' && agentList.length === 0 ? t('chat.mode.noAgents') : m.hint}
            disabled={streaming || (m.mode === 'agent' && agentList.length === 0)}
            onClick={() => mode !== m.mode && void chat.actions.setMode(m.mode)}
            data-testid={`mode-${m.mode}`}
          >
            {m.label}
          </button>
        ))}
      </div>
      {mode === 'agent' && agentList.length > 0 && (
        <select
          className="input input-small agent-picker"
          value={agentId}
          onChange={(e) => void chat.actions.setMode('agent', e.target.value)}
          disabled={streaming}
          aria-label={t('chat.agent')}
          data-testid="agent-picker"
        >
          {agentList.map((a) => (
            <option key={a.id} value={a.id}>
              {a.icon ? `${a.icon} ` : ''}
              {a.name}
              {a.title ? ` — ${a.title}` : ''}
            </option>
          ))}
        </select>
      )}
      <div className="cp-wrap">
        <ConversationMenu checkpoints={checkpoints.length} onCheckpoints={() => setCpOpen((o) => !o)} />
        {cpOpen && <CheckpointsPanel onClose={() => setCpOpen(false)} conversationId={meta.id} onFork={(name) => void conversations.actions.fork(meta.id, { checkpoint: name })} />}
      </div>
    </header>
  )
}

/** Where a conversation the model created comes from, with a way back. */
function CreatedBy() {
  const { t } = useTranslation()
  const { chat, conversations } = useStores()
  const origin = useStore(chat, (s) => s.meta?.origin)
  const parent = useStore(conversations, (s) => (origin ? s.list.find((c) => c.id === origin.conversationId) : undefined))
  if (!origin) return null
  return (
    <>
      {' · '}
      {parent ? (
        <button type="button" className="chat-origin" onClick={() => conversations.actions.select(parent.id)} title={t('chat.createdByTitle')} data-testid="chat-origin">
          {t('chat.createdBy', { title: parent.title })}
        </button>
      ) : (
        <span data-testid="chat-origin">{t('chat.createdByDeleted')}</span>
      )}
    </>
  )
}

/** The ⋯ menu of the conversation: its checkpoints (named points to fork
 * from; Rewind is under each message of yours), and export as Markdown or
 * JSON (saved where the user chooses, in the native save dialog). */
function ConversationMenu({ checkpoints, onCheckpoints }: { checkpoints: number; onCheckpoints: () => void }) {
  const { t } = useTranslation()
  const { chat } = useStores()
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !ref.current?.contains(e.target as Node)) setOpen(false)
    }
    window.addEventListener('mousedown', close)
    window.addEventListener('keydown', close)
    return () => {
      window.removeEventListener('mousedown', close)
      window.removeEventListener('keydown', close)
    }
  }, [open])
  const exportAs = (format: ExportFormat) => {
    setOpen(false)
    void chat.actions.exportToFile(format)
  }
  return (
    <div className="conv-menu-wrap" ref={ref}>
      <button
        type="button"
        className="btn btn-small btn-ghost conv-menu-toggle"
        onClick={() => setOpen((o) => !o)}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t('chat.menu.label')}
        title={t('chat.menu.title')}
        data-testid="conv-menu-toggle"
      >
        ⋯
      </button>
      {open && (
        <div className="conv-menu" role="menu" data-testid="conv-menu">
          <button
            type="button"
            role="menuitem"
            className="conv-menu-item"
            onClick={() => {
              setOpen(false)
              onCheckpoints()
            }}
            data-testid="menu-checkpoints"
          >
            <span>{checkpoints ? t('chat.checkpointsCount', { count: checkpoints }) : t('chat.checkpoints')}</span>
          </button>
          <button type="button" role="menuitem" className="conv-menu-item" onClick={() => exportAs('md')} data-testid="export-md">
            <span>{t('chat.menu.exportMd')}</span>
            <span className="hint">{'.md'}</span>
          </button>
          <button type="button" role="menuitem" className="conv-menu-item" onClick={() => exportAs('json')} data-testid="export-json">
            <span>{t('chat.menu.exportJson')}</span>
            <span className="hint">{'.json'}</span>
          </button>
        </div>
      )}
    </div>
  )
}

function CheckpointsPanel({ conversationId, onFork, onClose }: { conversationId: string; onFork: (name: string) => void; onClose: () => void }) {
  const { t } = useTranslation()
  const { chat, conversations } = useStores()
  const meta = useStore(chat, (s) => s.meta)
  const [name, setName] = useState('')
  const checkpoints = meta?.checkpoints ?? []
  const create = async () => {
    if (await conversations.actions.checkpoint(conversationId, name)) setName('')
  }
  return (
    <div className="popover" role="dialog" aria-label={t('chat.checkpoints')} data-testid="checkpoints-panel">
      <div className="popover-head">
        <strong>{t('chat.checkpoints')}</strong>
        <button type="button" className="btn btn-ghost btn-small" onClick={onClose} aria-label={t('common.close')}>
          ✕
        </button>
      </div>
      {checkpoints.length === 0 ? (
        <p className="hint">{t('chat.cp.none')}</p>
      ) : (
        <ul className="cp-list">
          {checkpoints.map((c) => (
            <li key={c.name} className="cp-item" data-testid="cp-item">
              <span className="cp-name">{c.name}</span>
              <span className="hint">{timeAgo(c.createdAt)}</span>
              <button type="button" className="btn btn-small" onClick={() => (onFork(c.name), onClose())} data-testid="cp-fork">
                {t('chat.fork')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="cp-form"
        onSubmit={(e) => {
          e.preventDefault()
          void create()
        }}
      >
        <input className="input input-small" placeholder={t('chat.cp.name')} value={name} onChange={(e) => setName(e.target.value)} data-testid="cp-name-input" />
        <button type="submit" className="btn btn-small btn-primary" disabled={!name.trim()} data-testid="cp-create">
          {t('chat.cp.create')}
        </button>
      </form>
    </div>
  )
}

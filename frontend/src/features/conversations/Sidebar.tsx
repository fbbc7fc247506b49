import { useState } from 'react'
import type { ConversationMeta, SearchHit } from '../../bridge'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { timeAgo } from '../../lib/time'
import { useStore, useStores } from '../../stores'
import { count } from '../../lib/count'
import './conversations.css'

/** The conversation list of the open project: newest activity first, search
 * over titles and message text, new, inline rename and delete. */
export function Sidebar() {
  const { conversations } = useStores()
  const list = useStore(conversations, (s) => s.list)
  const loaded = useStore(conversations, (s) => s.loaded)
  const selectedId = useStore(conversations, (s) => s.selectedId)
  const query = useStore(conversations, (s) => s.query)
  const hits = useStore(conversations, (s) => s.hits)
  const searching = useStore(conversations, (s) => s.searching)
  const [deleting, setDeleting] = useState<ConversationMeta | null>(null)
  const a = conversations.actions

  return (
    <aside className="sidebar" aria-label="Conversations" data-testid="sidebar">
      <div className="sidebar-head">
        <h2 className="sidebar-title">Conversations</h2>
        <button type="button" className="btn btn-primary btn-small" onClick={() => void a.create()} title="New conversation (Ctrl+N)" data-testid="conv-new">
          + New
        </button>
      </div>
      <div className="sidebar-search">
        <input
          className="input input-small"
          type="search"
          placeholder="Search titles and messages"
          value={query}
          onChange={(e) => a.setQuery(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && a.setQuery('')}
          aria-label="Search conversations"
          data-testid="conv-search"
        />
      </div>
      <div className="sidebar-list">
        {query.trim() ? (
          <SearchResults hits={hits} searching={searching} query={query} selectedId={selectedId} onOpen={a.select} />
        ) : !loaded ? (
          <p className="sidebar-empty">Loading…</p>
        ) : list.length === 0 ? (
          <div className="sidebar-empty" data-testid="conv-empty">
            <p>No conversations yet.</p>
            <p className="hint">Start one with “+ New” (Ctrl+N).</p>
          </div>
        ) : (
          <ul className="conv-list" role="list">
            {list.map((c) => (
              <ConversationItem key={c.id} meta={c} selected={c.id === selectedId} onOpen={() => a.select(c.id)} onRename={(t) => a.rename(c.id, t)} onDelete={() => setDeleting(c)} />
            ))}
          </ul>
        )}
      </div>
      {deleting && (
        <DeleteDialog
          meta={deleting}
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            if (await a.remove(deleting.id)) setDeleting(null)
          }}
        />
      )}
    </aside>
  )
}

function ConversationItem({
  meta,
  selected,
  onOpen,
  onRename,
  onDelete,
}: {
  meta: ConversationMeta
  selected: boolean
  onOpen: () => void
  onRename: (title: string) => Promise<boolean>
  onDelete: () => void
}) {
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(meta.title)
  const commit = async () => {
    if (!editing) return
    setEditing(false)
    if (draft.trim() && draft.trim() !== meta.title) await onRename(draft)
  }
  return (
    <li className={`conv-item ${selected ? 'is-selected' : ''}`} data-testid="conv-item" data-id={meta.id} aria-current={selected || undefined}>
      {editing ? (
        <input
          className="input input-small conv-rename-input"
          value={draft}
          autoFocus
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => void commit()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void commit()
            if (e.key === 'Escape') {
              setEditing(false)
              setDraft(meta.title)
            }
          }}
          aria-label="Conversation title"
          data-testid="conv-rename-input"
        />
      ) : (
        <button type="button" className="conv-open" onClick={onOpen} onDoubleClick={() => (setDraft(meta.title), setEditing(true))} data-testid="conv-open">
          <span className="conv-title" data-testid="conv-title">
            {meta.title}
          </span>
          <span className="conv-meta">
            {timeAgo(meta.lastActiveAt)} · {meta.messageCount} msg{meta.parentId ? ' · fork' : ''}
          </span>
        </button>
      )}
      {!editing && (
        <span className="conv-actions">
          <button type="button" className="icon-btn" title="Rename" aria-label={`Rename ${meta.title}`} onClick={() => (setDraft(meta.title), setEditing(true))} data-testid="conv-rename">
            ✎
          </button>
          <button type="button" className="icon-btn icon-danger" title="Delete" aria-label={`Delete ${meta.title}`} onClick={onDelete} data-testid="conv-delete">
            🗑
          </button>
        </span>
      )}
    </li>
  )
}

function SearchResults({
  hits,
  searching,
  query,
  selectedId,
  onOpen,
}: {
  hits: SearchHit[] | null
  searching: boolean
  query: string
  selectedId: string | null
  onOpen: (id: string) => void
}) {
  if (hits === null) return <p className="sidebar-empty">{searching ? 'Searching…' : ''}</p>
  if (hits.length === 0)
    return (
      <p className="sidebar-empty" data-testid="conv-search-empty">
        Nothing matches “{query.trim()}”.
      </p>
    )
  return (
    <ul className="conv-list" role="list" data-testid="conv-hits">
      {hits.map((h) => (
        <li key={h.conversationId} className={`conv-item ${h.conversationId === selectedId ? 'is-selected' : ''}`} data-testid="conv-hit" data-id={h.conversationId}>
          <button type="button" className="conv-open" onClick={() => onOpen(h.conversationId)}>
            <span className="conv-title">{h.title}</span>
            {h.snippet ? (
              <span className="conv-snippet" data-testid="conv-hit-snippet">
                <Highlight text={h.snippet} query={query.trim()} />
              </span>
            ) : null}
            <span className="conv-meta">
              {h.matches > 0 ? `${h.matches >= 999 ? '999+' : h.matches} message${h.matches === 1 ? '' : 's'}` : 'title'} · {timeAgo(h.lastActiveAt)}
            </span>
          </button>
        </li>
      ))}
    </ul>
  )
}

/** The snippet with each occurrence of the query marked. */
function Highlight({ text, query }: { text: string; query: string }) {
  if (!query) return <>{text}</>
  const lower = text.toLowerCase()
  const q = query.toLowerCase()
  const parts: React.ReactNode[] = []
  let at = 0
  for (let i = lower.indexOf(q); i >= 0 && parts.length < 20; i = lower.indexOf(q, i + q.length)) {
    parts.push(text.slice(at, i), <mark key={i}>{text.slice(i, i + q.length)}</mark>)
    at = i + q.length
  }
  parts.push(text.slice(at))
  return <>{parts}</>
}

function DeleteDialog({ meta, onCancel, onConfirm }: { meta: ConversationMeta; onCancel: () => void; onConfirm: () => Promise<void> }) {
  return (
    <ConfirmDialog title="Delete conversation?" confirmLabel="Delete" testId="delete" onCancel={onCancel} onConfirm={onConfirm}>
      <p>
        “<strong>{meta.title}</strong>” will be deleted with its whole chat history ({count(meta.messageCount, 'message')}), every tool output saved for it
        {meta.runs?.length ? <>, and its {count(meta.runs.length, 'workflow run')} (state and execution log)</> : ' and any workflow run in it'}.
      </p>
      <p className="hint">This removes the files from disk and cannot be undone.</p>
    </ConfirmDialog>
  )
}

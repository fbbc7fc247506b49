import { useMemo, useState } from 'react'
import type { ConversationMeta, SearchHit } from '../../bridge'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { conversationTree, isChild, isFork, type TreeRow } from '../../lib/conversationTree'
import { timeAgo } from '../../lib/time'
import { useStore, useStores } from '../../stores'
import { count } from '../../lib/count'
import './conversations.css'

/** The conversation list of the open project: newest activity first, the
 * conversations the model created (conv.create) under the one that created
 * them (a tree that folds), who is answering or waiting, search over titles
 * and message text, new, inline rename and delete. */
export function Sidebar() {
  const { conversations } = useStores()
  const list = useStore(conversations, (s) => s.list)
  const loaded = useStore(conversations, (s) => s.loaded)
  const selectedId = useStore(conversations, (s) => s.selectedId)
  const query = useStore(conversations, (s) => s.query)
  const hits = useStore(conversations, (s) => s.hits)
  const searching = useStore(conversations, (s) => s.searching)
  const collapsed = useStore(conversations, (s) => s.collapsed)
  const answering = useStore(conversations, (s) => s.answering)
  const [deleting, setDeleting] = useState<ConversationMeta | null>(null)
  const a = conversations.actions
  const rows = useMemo(() => conversationTree(list, new Set(collapsed)), [list, collapsed])
  const titles = useMemo(() => new Map(list.map((m) => [m.id, m.title])), [list])
  const branches = rows.some((r) => r.children > 0)

  return (
    <aside className="sidebar" id="conversation-sidebar" aria-label="Conversations" data-testid="sidebar">
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
          <ul className="conv-list" role="tree" aria-label="Conversations">
            {rows.map((r) => (
              <ConversationItem
                key={r.meta.id}
                row={r}
                indent={branches}
                status={answering[r.meta.id] ? 'answering' : r.meta.waiting ? `waiting for “${titles.get(r.meta.waiting.conversationId) ?? 'another conversation'}”` : ''}
                selected={r.meta.id === selectedId}
                onOpen={() => a.select(r.meta.id)}
                onToggle={() => a.toggle(r.meta.id)}
                onRename={(t) => a.rename(r.meta.id, t)}
                onDelete={() => setDeleting(r.meta)}
              />
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
  row,
  indent,
  status,
  selected,
  onOpen,
  onToggle,
  onRename,
  onDelete,
}: {
  row: TreeRow
  /** Room for a fold button on every row (some rows have one). */
  indent: boolean
  /** "answering", "waiting for …", or "". */
  status: string
  selected: boolean
  onOpen: () => void
  onToggle: () => void
  onRename: (title: string) => Promise<boolean>
  onDelete: () => void
}) {
  const meta = row.meta
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(meta.title)
  const commit = async () => {
    if (!editing) return
    setEditing(false)
    if (draft.trim() && draft.trim() !== meta.title) await onRename(draft)
  }
  return (
    <li
      className={`conv-item ${selected ? 'is-selected' : ''} ${row.depth > 0 ? 'is-child' : ''}`}
      style={row.depth > 0 ? { paddingLeft: `${Math.min(row.depth, 6) * 14}px` } : undefined}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-expanded={row.children > 0 ? !row.collapsed : undefined}
      aria-selected={selected}
      data-testid="conv-item"
      data-id={meta.id}
      data-depth={row.depth}
      data-status={status ? status.split(' ')[0] : undefined}
      aria-current={selected || undefined}
    >
      {row.children > 0 ? (
        <button
          type="button"
          className="conv-twisty"
          onClick={onToggle}
          aria-label={`${row.collapsed ? 'Show' : 'Hide'} the ${count(row.children, 'conversation')} it created`}
          title={`${row.collapsed ? 'Show' : 'Hide'} the ${count(row.children, 'conversation')} it created`}
          data-testid="conv-twisty"
        >
          {row.collapsed ? '▸' : '▾'}
        </button>
      ) : row.depth > 0 ? (
        <span className="conv-twisty conv-branch" aria-hidden="true">
          ↳
        </span>
      ) : (
        indent && <span className="conv-twisty" aria-hidden="true" />
      )}
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
            {status ? (
              <span className={`conv-status ${status === 'answering' ? 'is-answering' : 'is-waiting'}`} data-testid="conv-status">
                {status}
              </span>
            ) : (
              <>
                {timeAgo(meta.lastActiveAt)} · {meta.messageCount} msg{isFork(meta) ? ' · fork' : ''}
                {row.collapsed && row.children > 0 ? ` · ${count(row.children, 'sub-conversation')}` : ''}
              </>
            )}
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
  const { conversations } = useStores()
  const created = useStore(conversations, (s) => s.list.filter((c) => isChild(c) && c.parentId === meta.id).length)
  return (
    <ConfirmDialog title="Delete conversation?" confirmLabel="Delete" testId="delete" onCancel={onCancel} onConfirm={onConfirm}>
      <p>
        “<strong>{meta.title}</strong>” will be deleted with its whole chat history ({count(meta.messageCount, 'message')}), every tool output saved for it
        {meta.runs?.length ? <>, and its {count(meta.runs.length, 'workflow run')} (state and execution log)</> : ' and any workflow run in it'}.
      </p>
      {created > 0 && <p>The {count(created, 'conversation')} it created stay, at the top of the list.</p>}
      <p className="hint">This removes the files from disk and cannot be undone.</p>
    </ConfirmDialog>
  )
}

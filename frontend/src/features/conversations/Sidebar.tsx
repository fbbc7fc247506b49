import { useMemo, useState } from 'react'
import type { ConversationMeta, SearchHit } from '../../bridge'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { conversationTree, isChild, isFork, type TreeRow } from '../../lib/conversationTree'
import { timeAgo } from '../../lib/time'
import { useStore, useStores } from '../../stores'
import './conversations.css'
import { Trans, useTranslation } from '../../i18n'

/** The conversation list of the open project: newest activity first, the
 * conversations the model created (conv.create) under the one that created
 * them (a tree that folds), who is answering or waiting, search over titles
 * and message text, new, inline rename and delete. */
export function Sidebar() {
  const { t } = useTranslation()
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
    <aside className="sidebar" id="conversation-sidebar" aria-label={t('sidebar.title')} data-testid="sidebar">
      <div className="sidebar-head">
        <h2 className="sidebar-title">{t('sidebar.title')}</h2>
        <button type="button" className="btn btn-primary btn-small" onClick={() => void a.create()} title={t('sidebar.newTitle')} data-testid="conv-new">
          {t('sidebar.new')}
        </button>
      </div>
      <div className="sidebar-search">
        <input
          className="input input-small"
          type="search"
          placeholder={t('sidebar.search')}
          value={query}
          onChange={(e) => a.setQuery(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && a.setQuery('')}
          aria-label={t('sidebar.searchLabel')}
          data-testid="conv-search"
        />
      </div>
      <div className="sidebar-list">
        {query.trim() ? (
          <SearchResults hits={hits} searching={searching} query={query} selectedId={selectedId} onOpen={a.select} />
        ) : !loaded ? (
          <p className="sidebar-empty">{t('common.loading')}</p>
        ) : list.length === 0 ? (
          <div className="sidebar-empty" data-testid="conv-empty">
            <p>{t('sidebar.empty')}</p>
            <p className="hint">{t('sidebar.emptyHint')}</p>
          </div>
        ) : (
          <ul className="conv-list" role="tree" aria-label={t('sidebar.title')}>
            {rows.map((r) => (
              <ConversationItem
                key={r.meta.id}
                row={r}
                indent={branches}
                status={answering[r.meta.id] ? 'answering' : r.meta.waiting ? t('sidebar.waitingFor', { title: titles.get(r.meta.waiting.conversationId) ?? t('sidebar.another') }) : ''}
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
  const { t } = useTranslation()
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
          aria-label={t(row.collapsed ? 'sidebar.showChildren' : 'sidebar.hideChildren', { count: row.children })}
          title={t(row.collapsed ? 'sidebar.showChildren' : 'sidebar.hideChildren', { count: row.children })}
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
          aria-label={t('sidebar.titleLabel')}
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
                {status === 'answering' ? t('sidebar.answering') : status}
              </span>
            ) : (
              <>
                {timeAgo(meta.lastActiveAt)} · {t('sidebar.msgs', { count: meta.messageCount })}
                {isFork(meta) ? t('sidebar.fork') : ''}
                {row.collapsed && row.children > 0 ? ` · ${t('sidebar.subs', { count: row.children })}` : ''}
              </>
            )}
          </span>
        </button>
      )}
      {!editing && (
        <span className="conv-actions">
          <button type="button" className="icon-btn" title={t('sidebar.rename')} aria-label={t('sidebar.renameLabel', { title: meta.title })} onClick={() => (setDraft(meta.title), setEditing(true))} data-testid="conv-rename">
            ✎
          </button>
          <button type="button" className="icon-btn icon-danger" title={t('common.delete')} aria-label={t('sidebar.deleteLabel', { title: meta.title })} onClick={onDelete} data-testid="conv-delete">
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
  const { t } = useTranslation()
  if (hits === null) return <p className="sidebar-empty">{searching ? t('sidebar.searching') : ''}</p>
  if (hits.length === 0)
    return (
      <p className="sidebar-empty" data-testid="conv-search-empty">
        {t('sidebar.noMatch', { query: query.trim() })}
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
              {h.matches > 0 ? (h.matches >= 999 ? t('sidebar.hitMany') : t('sidebar.hitMessages', { count: h.matches })) : t('sidebar.hitTitle')} · {timeAgo(h.lastActiveAt)}
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
  const { t } = useTranslation()
  const { conversations } = useStores()
  const created = useStore(conversations, (s) => s.list.filter((c) => isChild(c) && c.parentId === meta.id).length)
  return (
    <ConfirmDialog title={t('sidebar.deleteTitle')} confirmLabel={t('common.delete')} testId="delete" onCancel={onCancel} onConfirm={onConfirm}>
      <p>
        <Trans t={t} i18nKey="sidebar.deleteBody" values={{ title: meta.title, messages: t('count.messages', { count: meta.messageCount }) }} components={{ b: <strong /> }} />
        {meta.runs?.length ? t('sidebar.deleteRuns', { count: meta.runs.length }) : t('sidebar.deleteNoRuns')}
      </p>
      {created > 0 && <p>{t('sidebar.deleteChildren', { count: created })}</p>}
      <p className="hint">{t('sidebar.deleteHint')}</p>
    </ConfirmDialog>
  )
}

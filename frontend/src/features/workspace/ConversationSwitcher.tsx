import { useMemo, useState } from 'react'
import { Modal } from '../../components/Modal'
import { timeAgo } from '../../lib/time'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'
import { matchConversations } from './shortcuts'

/** Ctrl/Cmd+K: the conversations by title, the latest first; type to narrow,
 * ↑ ↓ to choose, Enter to open. */
export function ConversationSwitcher({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation()
  const { conversations } = useStores()
  const list = useStore(conversations, (s) => s.list)
  const selectedId = useStore(conversations, (s) => s.selectedId)
  const [query, setQuery] = useState('')
  const [index, setIndex] = useState(0)
  const found = useMemo(() => matchConversations(list, query).slice(0, 50), [list, query])
  const at = Math.min(index, Math.max(0, found.length - 1))
  const open = (id: string) => {
    conversations.actions.select(id)
    onClose()
  }
  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault()
      setIndex(Math.min(at + 1, found.length - 1))
    } else if (e.key === 'ArrowUp') {
      e.preventDefault()
      setIndex(Math.max(at - 1, 0))
    } else if (e.key === 'Enter' && found[at]) {
      e.preventDefault()
      open(found[at].id)
    }
  }
  return (
    <Modal title={t('switcher.title')} onClose={onClose} testId="switcher">
      <input
        className="input switcher-input"
        value={query}
        onChange={(e) => {
          setQuery(e.target.value)
          setIndex(0)
        }}
        onKeyDown={onKey}
        placeholder={t('switcher.placeholder')}
        aria-label={t('switcher.placeholder')}
        aria-controls="switcher-list"
        aria-activedescendant={found[at] ? `switcher-${found[at].id}` : undefined}
        data-testid="switcher-input"
      />
      {found.length === 0 ? (
        <p className="hint" data-testid="switcher-none">
          {t('switcher.none')}
        </p>
      ) : (
        <ul className="switcher-list" id="switcher-list" role="listbox" aria-label={t('switcher.title')}>
          {found.map((c, i) => (
            <li
              key={c.id}
              id={`switcher-${c.id}`}
              role="option"
              aria-selected={i === at}
              className="switcher-item"
              data-open={c.id === selectedId ? '' : undefined}
              onMouseEnter={() => setIndex(i)}
              onClick={() => open(c.id)}
              data-testid="switcher-item"
              data-id={c.id}
            >
              <span className="switcher-name">{c.title || t('switcher.untitled')}</span>
              <span className="switcher-when">{timeAgo(c.lastActiveAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  )
}

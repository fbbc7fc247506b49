import { useEffect, useRef } from 'react'
import type { MenuItem } from './composerCommands'
import { useTranslation } from '../../i18n'
import './composerMenu.css'

/** The list the composer shows above its input while a "/" command or an
 * "@" resource is typed: one line per item (its command, what it does, the
 * server it comes from); the input keeps the focus and moves the active
 * line with ↑ ↓, chooses it with Enter or Tab and closes the list with Esc. */
export function ComposerMenu({
  id,
  items,
  active,
  label,
  empty,
  onChoose,
  onHover,
}: {
  id: string
  items: MenuItem[]
  active: number
  label: string
  /** What to say when there is nothing to list (null: the list is hidden). */
  empty: string | null
  onChoose: (item: MenuItem) => void
  onHover: (index: number) => void
}) {
  const { t } = useTranslation()
  const list = useRef<HTMLUListElement>(null)
  useEffect(() => {
    const el = list.current?.children[active] as HTMLElement | undefined
    el?.scrollIntoView?.({ block: 'nearest' })
  }, [active])
  if (items.length === 0 && !empty) return null
  return (
    <div className="composer-menu" data-testid="composer-menu">
      {items.length === 0 ? (
        <div className="composer-menu-empty" data-testid="composer-menu-empty">
          {empty}
        </div>
      ) : (
        <ul ref={list} id={id} role="listbox" aria-label={label} className="composer-menu-list">
          {items.map((item, i) => (
            <li
              key={item.key}
              id={`${id}-${i}`}
              role="option"
              aria-selected={i === active}
              className={`composer-menu-item${i === active ? ' is-active' : ''}`}
              onMouseDown={(e) => e.preventDefault()}
              onMouseEnter={() => onHover(i)}
              onClick={() => onChoose(item)}
              data-testid="composer-menu-item"
              data-kind={item.kind}
            >
              <span className="composer-menu-label">{item.label}</span>
              {'badge' in item && (
                <span className="composer-menu-badge" title={t('composerMenu.server', { server: item.badge })}>
                  {item.badge}
                </span>
              )}
              <span className="composer-menu-detail">{item.detail}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-menu-hint" aria-hidden="true">
        {t('composerMenu.keys')}
      </div>
    </div>
  )
}

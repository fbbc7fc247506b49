import { useEffect, useRef } from 'react'
import { useTranslation } from '../../i18n'

/** Ctrl/Cmd+F over the conversation: the words to find, which hit of how
 * many is shown, and the way to the previous and next one. Enter goes to the
 * next hit, Shift+Enter to the previous, Esc closes. */
export function FindBar({
  query,
  setQuery,
  at,
  count,
  step,
  onClose,
  focusKey,
}: {
  query: string
  setQuery: (q: string) => void
  at: number
  count: number
  step: (dir: 1 | -1) => void
  onClose: () => void
  /** Changes each time Ctrl/Cmd+F is pressed: the field takes the focus again. */
  focusKey: number
}) {
  const { t } = useTranslation()
  const ref = useRef<HTMLInputElement>(null)
  useEffect(() => {
    ref.current?.focus()
    ref.current?.select()
  }, [focusKey])
  return (
    <div className="find-bar" role="search" aria-label={t('find.label')} data-testid="find-bar">
      <input
        ref={ref}
        className="input find-input"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault()
            step(e.shiftKey ? -1 : 1)
          } else if (e.key === 'Escape') {
            e.preventDefault()
            e.stopPropagation()
            onClose()
          }
        }}
        placeholder={t('find.placeholder')}
        aria-label={t('find.label')}
        data-testid="find-input"
      />
      <span className="find-count" aria-live="polite" data-testid="find-count" data-count={count}>
        {query.trim() ? (count ? t('find.count', { at: at + 1, count }) : t('find.none')) : ''}
      </span>
      <button type="button" className="icon-btn" onClick={() => step(-1)} disabled={count === 0} aria-label={t('find.prev')} title={t('find.prev')} data-testid="find-prev">
        <span aria-hidden="true">↑</span>
      </button>
      <button type="button" className="icon-btn" onClick={() => step(1)} disabled={count === 0} aria-label={t('find.next')} title={t('find.next')} data-testid="find-next">
        <span aria-hidden="true">↓</span>
      </button>
      <button type="button" className="icon-btn" onClick={onClose} aria-label={t('find.close')} title={t('find.close')} data-testid="find-close">
        <span aria-hidden="true">✕</span>
      </button>
    </div>
  )
}

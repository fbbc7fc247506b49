import { useEffect, useRef, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import './Modal.css'
import { useTranslation } from '../i18n'

/** A centred dialog over the window (rendered into <body>, so no ancestor's
 * transform or overflow can clip it); Escape and the backdrop close it. */
export function Modal({
  title,
  onClose,
  children,
  footer,
  wide = false,
  className = '',
  testId,
}: {
  title: string
  onClose: () => void
  children: ReactNode
  footer?: ReactNode
  wide?: boolean
  /** More classes of the dialog (a fixed size, say). */
  className?: string
  testId?: string
}) {
  const { t } = useTranslation()
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation()
        onClose()
      }
    }
    window.addEventListener('keydown', onKey, true)
    const first = ref.current?.querySelector<HTMLElement>('.modal-body [data-autofocus], .modal-body input:not([readonly]), .modal-body textarea')
    ;(first ?? ref.current)?.focus()
    return () => window.removeEventListener('keydown', onKey, true)
  }, [onClose])
  return createPortal(
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={ref} tabIndex={-1} className={`modal ${wide ? 'modal-wide' : ''} ${className}`} role="dialog" aria-modal="true" aria-label={title} data-testid={testId}>
        <header className="modal-header">
          <h2 className="modal-title">{title}</h2>
          <button type="button" className="btn btn-ghost btn-small" onClick={onClose} aria-label={t('common.close')} data-testid={testId ? `${testId}-close` : undefined}>
            ✕
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>,
    document.body,
  )
}

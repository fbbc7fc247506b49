import { useState, type ReactNode } from 'react'
import { Modal } from './Modal'
import { useTranslation } from '../i18n'

/** A dialog that asks before something that cannot be undone: Cancel, and a
 * danger button that stays disabled while onConfirm runs. Test ids are
 * `${testId}-dialog`, `${testId}-cancel` and `${testId}-confirm`. */
export function ConfirmDialog({
  title,
  confirmLabel,
  busyLabel,
  testId,
  onCancel,
  onConfirm,
  children,
}: {
  title: string
  confirmLabel: string
  /** The confirm button's text while onConfirm runs (confirmLabel when unset). */
  busyLabel?: string
  testId: string
  onCancel: () => void
  onConfirm: () => Promise<void>
  children: ReactNode
}) {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  return (
    <Modal
      title={title}
      onClose={onCancel}
      testId={`${testId}-dialog`}
      footer={
        <>
          <button type="button" className="btn" onClick={onCancel} data-testid={`${testId}-cancel`}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="btn btn-danger"
            disabled={busy}
            onClick={async () => {
              setBusy(true)
              try {
                await onConfirm()
              } finally {
                setBusy(false)
              }
            }}
            data-testid={`${testId}-confirm`}
          >
            {busy && busyLabel ? busyLabel : confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Modal>
  )
}

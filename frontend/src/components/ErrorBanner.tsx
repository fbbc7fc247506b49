import type { BridgeError } from '../bridge'
import './ErrorBanner.css'
import { useTranslation } from '../i18n'

/** One failure, said plainly, with its code for reports under Details. */
export function ErrorBanner({ error, onDismiss }: { error: BridgeError; onDismiss?: () => void }) {
  const { t } = useTranslation()
  return (
    <div className="alert" role="alert" data-testid="error-banner" data-code={error.code}>
      <div>
        <div className="alert-message" data-testid="error-message">
          {error.message}
        </div>
        {error.code && (
          <details className="alert-code">
            <summary>{t('common.details')}</summary>
            <span className="mono" data-testid="error-code">
              {error.code}
            </span>
          </details>
        )}
      </div>
      {onDismiss && (
        <button type="button" className="btn btn-ghost btn-small" onClick={onDismiss} aria-label={t('common.dismissError')} data-testid="error-dismiss">
          {t('common.dismiss')}
        </button>
      )}
    </div>
  )
}

import type { BridgeError } from '../bridge'
import './ErrorBanner.css'
import { useTranslation } from '../i18n'
import { backendDetail, backendText } from '../i18n/backend'

/** One failure, said plainly in the language in use, with its code (and
 * the backend's own words when they could not be said) under Details. */
export function ErrorBanner({ error, onDismiss }: { error: BridgeError; onDismiss?: () => void }) {
  const { t } = useTranslation()
  const detail = backendDetail(error)
  return (
    <div className="alert" role="alert" data-testid="error-banner" data-code={error.code}>
      <div>
        <div className="alert-message" data-testid="error-message">
          {backendText(error)}
        </div>
        {error.code && (
          <details className="alert-code">
            <summary>{t('common.details')}</summary>
            {detail && (
              <div className="mono" data-testid="error-detail">
                {detail}
              </div>
            )}
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

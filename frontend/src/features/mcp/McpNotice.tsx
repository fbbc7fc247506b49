import { useEffect } from 'react'
import './mcp.css'
import { useStore, useStores } from '../../stores'
import { Trans, useTranslation } from '../../i18n'

/** Above the composer: the MCP servers of the open project that failed to
 * start, so the model is offered none of their tools, each with the reason, a
 * way to Settings → MCP and a dismiss button (a server that starts again
 * leaves the list by itself); and, when servers are configured but MCP tools
 * are off in the settings, a line that says so. */
export function McpNotice() {
  const { t } = useTranslation()
  const { mcp, settings } = useStores()
  const failed = useStore(mcp, (s) => s.failed)
  const offCount = useStore(mcp, (s) => (s.offDismissed ? 0 : s.offCount))
  useEffect(() => mcp.actions.watchFailures(), [mcp])
  const names = Object.keys(failed).sort()
  if (names.length === 0 && offCount === 0) return null
  return (
    <div className="mcp-notice" role="alert" data-testid="mcp-notice">
      {offCount > 0 && (
        <div className="mcp-notice-row" data-testid="mcp-notice-off">
          <span className="mcp-notice-text">
            {t('mcpNotice.off', { count: offCount })}
          </span>
          <button type="button" className="btn btn-small" onClick={() => settings.actions.show('mcp')} data-testid="mcp-notice-open">
            {t('mcpNotice.settings')}
          </button>
          <button type="button" className="btn btn-small btn-ghost" aria-label={t('mcpNotice.dismissOff')} onClick={() => mcp.actions.dismissFailure('')} data-testid="mcp-notice-dismiss">
            ×
          </button>
        </div>
      )}
      {names.map((name) => (
        <div key={name} className="mcp-notice-row" data-testid="mcp-notice-row" data-server={name}>
          <span className="mcp-notice-text">
            <Trans t={t} i18nKey="mcpNotice.failed" values={{ name, reason: failed[name] }} components={{ b: <strong /> }} />
          </span>
          <button type="button" className="btn btn-small" onClick={() => settings.actions.show('mcp')} data-testid="mcp-notice-open">
            {t('mcpNotice.settings')}
          </button>
          <button type="button" className="btn btn-small btn-ghost" aria-label={t('mcpNotice.dismiss', { name })} onClick={() => mcp.actions.dismissFailure(name)} data-testid="mcp-notice-dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  )
}

import { useEffect } from 'react'
import './mcp.css'
import { useStore, useStores } from '../../stores'

/** Above the composer: the MCP servers of the open project that failed to
 * start, so the model is offered none of their tools, each with the reason, a
 * way to Settings → MCP and a dismiss button. A server that starts again
 * leaves the list by itself. */
export function McpNotice() {
  const { mcp, settings } = useStores()
  const failed = useStore(mcp, (s) => s.failed)
  useEffect(() => mcp.actions.watchFailures(), [mcp])
  const names = Object.keys(failed).sort()
  if (names.length === 0) return null
  return (
    <div className="mcp-notice" role="alert" data-testid="mcp-notice">
      {names.map((name) => (
        <div key={name} className="mcp-notice-row" data-testid="mcp-notice-row" data-server={name}>
          <span className="mcp-notice-text">
            MCP server <strong>{name}</strong> failed to start, so its tools are not offered: {failed[name]}
          </span>
          <button type="button" className="btn btn-small" onClick={() => settings.actions.show('mcp')} data-testid="mcp-notice-open">
            Settings → MCP
          </button>
          <button type="button" className="btn btn-small btn-ghost" aria-label={`Dismiss the notice about ${name}`} onClick={() => mcp.actions.dismissFailure(name)} data-testid="mcp-notice-dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  )
}

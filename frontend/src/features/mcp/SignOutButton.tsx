import { useEffect } from 'react'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'

/** Settings → MCP: "Sign out" on a remote server whose sign-in token is
 * kept; the token is revoked where its authorization server offers that,
 * and forgotten (the server signs in again the next time it is used). */
export function SignOutButton({ name }: { name: string }) {
  const { t } = useTranslation()
  const { mcpComposer, mcp } = useStores()
  const signedIn = useStore(mcpComposer, (s) => s.signedIn)
  const busy = useStore(mcpComposer, (s) => s.signingOut === name)
  const done = useStore(mcpComposer, (s) => s.signedOut[name])
  useEffect(() => {
    if (signedIn === null) void mcpComposer.actions.loadSignedIn()
  }, [signedIn, mcpComposer])
  if (done && !signedIn?.includes(name)) {
    return (
      <span className="hint" role="status" title={done.notRevoked} data-testid="mcp-signed-out">
        {done.revoked ? t('mcpSignOut.revoked') : t('mcpSignOut.forgotten')}
      </span>
    )
  }
  if (!signedIn?.includes(name)) return null
  return (
    <button
      type="button"
      className="btn btn-small btn-ghost"
      disabled={busy}
      title={t('mcpSignOut.title')}
      onClick={async () => {
        if (await mcpComposer.actions.signOut(name)) void mcp.actions.load()
      }}
      data-testid="mcp-sign-out"
    >
      {busy ? t('mcpSignOut.signingOut') : t('mcpSignOut.button')}
    </button>
  )
}

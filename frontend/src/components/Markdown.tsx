import { memo, useCallback, type MouseEvent } from 'react'
import { allowedHref, renderMarkdownCached } from '../markdown/markdown'
import { useStores } from '../stores'

/** Model text as sanitised markdown (src/markdown). Links open in the system
 * browser; nothing navigates the webview. */
export const Markdown = memo(function Markdown({ text, className = '' }: { text: string; className?: string }) {
  const { appInfo } = useStores()
  const onClick = useCallback(
    (ev: MouseEvent<HTMLDivElement>) => {
      const a = (ev.target as HTMLElement).closest?.('a')
      if (!a) return
      ev.preventDefault()
      const href = allowedHref(a.getAttribute('href') ?? '')
      if (href) appInfo.actions.openExternal(href)
    },
    [appInfo],
  )
  return <div className={`md ${className}`} onClick={onClick} dangerouslySetInnerHTML={{ __html: renderMarkdownCached(text) }} />
})

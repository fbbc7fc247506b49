import { memo, useCallback, type MouseEvent } from 'react'
import { allowedHref, renderMarkdownCached, warmUp } from '../markdown/markdown'
import { useStores } from '../stores'
import './Markdown.css'

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

/** Renders the markdown warm-up sample and lays it out once, hidden and off
 * screen, then removes it: the first conversation opened then finds the
 * pipeline compiled and the fonts of text, bold and code already matched
 * and loaded, which otherwise costs its first layout about 100 ms. */
export function warmUpMarkdownView(root: HTMLElement = document.body) {
  const el = document.createElement('div')
  el.className = 'md'
  el.setAttribute('aria-hidden', 'true')
  el.style.cssText = 'position:absolute;left:-10000px;top:0;width:640px;visibility:hidden;pointer-events:none'
  el.innerHTML = warmUp()
  root.appendChild(el)
  el.getBoundingClientRect() // forces style and layout now
  el.remove()
}

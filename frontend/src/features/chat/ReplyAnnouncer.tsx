import { useEffect, useState } from 'react'
import type { Entry } from '../../bridge'
import { useStores } from '../../stores'
import { t } from '../../i18n'

/** How many characters of a finished reply are read out. */
const spokenChars = 240

/** What a screen reader says when a reply ends: that it ended, and how it
 * begins (a failure says so). */
export function replyAnnouncement(entries: readonly Entry[]): string {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.type !== 'msg' || e.role === 'tool') continue
    if (e.role === 'user') return ''
    if (e.role !== 'assistant') continue
    if (e.partType === 'error') return t('announce.failed')
    const text = (e.content ?? '').replace(/```[\s\S]*?(```|$)/g, t('announce.code')).replace(/[#*_`>|]+/g, '').replace(/\s+/g, ' ').trim()
    if (!text) continue // a turn of tool calls only: the words come earlier
    return t('announce.finished', { text: text.length > spokenChars ? `${text.slice(0, spokenChars)}…` : text })
  }
  return ''
}

/** A polite live region (visually hidden) that announces a reply of the open
 * conversation when it ends, so a screen reader user need not watch for it. */
export function ReplyAnnouncer() {
  const { chat } = useStores()
  const [message, setMessage] = useState('')
  useEffect(() => {
    let conversation = chat.getState().conversationId
    let answering = false
    return chat.subscribe(() => {
      const s = chat.getState()
      if (s.conversationId !== conversation) {
        conversation = s.conversationId
        answering = false
        setMessage('')
        return
      }
      if (s.streaming) answering = true
      else if (answering && s.settled) {
        answering = false
        setMessage(replyAnnouncement(s.entries))
      }
    })
  }, [chat])
  return (
    <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="reply-announcer" data-content="">
      {message}
    </div>
  )
}
